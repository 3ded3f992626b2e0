import { afterEach, describe, expect, it, vi } from 'vitest';

// What an acknowledged write on SQLite may count on (decision 2060): it answers only after an
// fsync of the write-ahead log that began after it, and writers waiting together share one.
const syncs: Array<{ path: string; done: () => void }> = [];
vi.mock('node:fs/promises', () => ({
  open: async (path: string) => ({
    sync: () => new Promise<void>((done) => syncs.push({ path, done })),
    close: async () => {},
  }),
}));
const { WalSync } = await import('./wal-sync.ts');

const turn = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  syncs.length = 0;
});

describe('WalSync', () => {
  it('answers at once when nothing was written, and after an fsync of the log when something was', async () => {
    const wal = new WalSync('/data/flagstaff.db');
    await wal.durable();
    expect(syncs).toHaveLength(0);
    wal.wrote();
    let durable = false;
    const waiting = wal.durable().then(() => {
      durable = true;
    });
    await turn();
    expect(syncs.map((s) => s.path)).toEqual(['/data/flagstaff.db-wal']);
    expect(durable).toBe(false);
    syncs[0]?.done();
    await waiting;
    expect(durable).toBe(true);
  });

  it('shares one fsync between writers waiting together, and makes a later writer wait for the next', async () => {
    const wal = new WalSync('/data/flagstaff.db');
    // Two writers committed, then both wait.
    wal.wrote();
    wal.wrote();
    const first = wal.durable();
    const second = wal.durable();
    await turn();
    expect(syncs).toHaveLength(1);
    // Written while that fsync ran: it may not cover this write.
    wal.wrote();
    let thirdDurable = false;
    const third = wal.durable().then(() => {
      thirdDurable = true;
    });
    syncs[0]?.done();
    await Promise.all([first, second]);
    await turn();
    expect(thirdDurable).toBe(false);
    expect(syncs).toHaveLength(2);
    syncs[1]?.done();
    await third;
  });
});
