import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalescer.ts';

/** A query whose rounds the test releases by hand, recording the keys of each. */
function manualQuery() {
  const rounds: { keys: string[]; release: (error?: Error) => void }[] = [];
  const query = (keys: string[]) =>
    new Promise<ReadonlyMap<string, string>>((resolve, reject) => {
      rounds.push({
        keys,
        release: (error) => (error ? reject(error) : resolve(new Map(keys.map((k) => [k, k.toUpperCase()])))),
      });
    });
  return { rounds, query };
}

describe('Coalescer', () => {
  it('answers concurrent lookups with one query per round', async () => {
    const { rounds, query } = manualQuery();
    const coalescer = new Coalescer(query);
    const first = coalescer.get('a');
    const during = [coalescer.get('b'), coalescer.get('c'), coalescer.get('b')];
    expect(rounds.map((r) => r.keys)).toEqual([['a']]);
    rounds[0]?.release();
    expect(await first).toBe('A');
    await Promise.resolve();
    // Everything asked while the first round ran shares the second, started after they asked.
    expect(rounds.map((r) => r.keys)).toEqual([['a'], ['b', 'c']]);
    rounds[1]?.release();
    expect(await Promise.all(during)).toEqual(['B', 'C', 'B']);
  });

  it('never answers a lookup from a round that began before it was asked', async () => {
    const { rounds, query } = manualQuery();
    const coalescer = new Coalescer(query);
    void coalescer.get('a');
    const late = coalescer.get('a');
    rounds[0]?.release();
    await Promise.resolve();
    expect(rounds).toHaveLength(2);
    rounds[1]?.release();
    expect(await late).toBe('A');
  });

  it('answers undefined for what the query did not find', async () => {
    const coalescer = new Coalescer(async () => new Map<string, string>());
    expect(await coalescer.get('missing')).toBeUndefined();
  });

  it('fails every lookup of a failed round, and the next round runs', async () => {
    const { rounds, query } = manualQuery();
    const coalescer = new Coalescer(query);
    const first = coalescer.get('a');
    const failed = [coalescer.get('b'), coalescer.get('c')];
    rounds[0]?.release();
    expect(await first).toBe('A');
    await Promise.resolve();
    rounds[1]?.release(new Error('database gone'));
    const settled = await Promise.allSettled(failed);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    const next = coalescer.get('d');
    rounds[2]?.release();
    expect(await next).toBe('D');
  });
});
