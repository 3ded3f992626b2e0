import { FlagdCore } from '@openfeature/flagd-core';
import { describe, expect, test } from 'vitest';
import vectorFile from '../../test/data/bucketing-vectors.json' with { type: 'json' };
import { bucketOf, bucketTable, MAX_TOTAL_WEIGHT, scaleHash } from './bucketing.ts';
import { murmur3Concat } from './murmur3.ts';
import { compileRollout } from './rollout.ts';

interface Vector {
  readonly flagKey: string;
  readonly seed: string | null;
  readonly value: string;
  readonly weights: readonly { readonly variant: string; readonly weight: number }[];
  readonly hash: number;
  readonly bucket: number | null;
  readonly variant: string | null;
}

const vectors = vectorFile.vectors as readonly Vector[];
const isAscii = (text: string) => /^[\x20-\x7e]*$/.test(text);
// flagd-core's murmur3 (imurmurhash) hashes UTF-16 code units; handing it the UTF-8 bytes as a
// Latin-1 string makes it hash exactly the UTF-8 text, as flagd (Go) and docs/product.md do.
const utf8AsLatin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const NONE = '__none__';

function flagdVariant(core: FlagdCore, key: string, context: Record<string, string> = {}): string | null {
  const result = core.resolveStringEvaluation(key, 'error', context);
  expect(result.reason).not.toBe('ERROR');
  return result.value === NONE ? null : result.value;
}

function flagdFlag(weights: Vector['weights'], fractionalArgs: unknown[]) {
  const variants: Record<string, string> = { [NONE]: NONE };
  for (const { variant } of weights) variants[variant] = variant;
  return { state: 'ENABLED', variants, defaultVariant: NONE, targeting: { fractional: fractionalArgs } };
}

describe('bucketing', () => {
  test('scales a hash by the total weight exactly, as 64-bit integer arithmetic does', () => {
    const edges = [0, 1, 65535, 65536, 2 ** 31, 2 ** 32 - 65536, 2 ** 32 - 1];
    const pairs: [number, number][] = [];
    for (const hash of edges)
      for (const total of [1, 3, 100, 65537, MAX_TOTAL_WEIGHT]) pairs.push([hash, total]);
    let state = 12345;
    for (let i = 0; i < 5000; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      pairs.push([state, (Math.imul(state, 2654435761) >>> 1) % MAX_TOTAL_WEIGHT || 1]);
    }
    for (const [hash, total] of pairs) {
      expect(scaleHash(hash, total)).toBe(Number((BigInt(hash) * BigInt(total)) >> 32n));
    }
  });

  test('has about fifty published vectors, with unicode, empty strings, zero weights and single variants', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(50);
    expect(vectors.some((v) => !isAscii(v.value))).toBe(true);
    expect(vectors.some((v) => v.value === '')).toBe(true);
    expect(vectors.some((v) => v.weights.some((w) => w.weight === 0))).toBe(true);
    expect(vectors.some((v) => v.weights.length === 1)).toBe(true);
    expect(vectors.some((v) => v.variant === null)).toBe(true);
  });

  test.each(vectors.map((v) => [v.flagKey, v.seed ?? '(flag key)', v.value, v] as const))(
    'vector %s (seed %s, value %j) hashes, buckets and picks as published',
    (_key, _seed, _value, vector) => {
      const seed = vector.seed ?? vector.flagKey;
      const table = bucketTable(vector.weights.map((w) => w.weight));
      expect(murmur3Concat(seed, vector.value)).toBe(vector.hash);
      if (vector.bucket !== null) expect(scaleHash(vector.hash, table.totalWeight)).toBe(vector.bucket);
      const index = bucketOf(table, seed, vector.value);
      expect(index < 0 ? null : vector.weights[index]?.variant).toBe(vector.variant);
      const rollout = compileRollout(
        { ...(vector.seed === null ? {} : { seed: vector.seed }), weights: vector.weights },
        vector.flagKey,
        vector.weights.map((w) => w.variant),
      );
      expect(rollout({ targetingKey: vector.value }) ?? null).toBe(vector.variant);
    },
  );

  test('every vector picks what flagd-core fractional picks for the same UTF-8 text', () => {
    const flags: Record<string, unknown> = {};
    for (const v of vectors) {
      const text = utf8AsLatin1((v.seed ?? v.flagKey) + v.value);
      flags[v.flagKey] = flagdFlag(v.weights, [text, ...v.weights.map((w) => [w.variant, w.weight])]);
    }
    const core = new FlagdCore();
    core.setConfigurations(JSON.stringify({ flags }));
    for (const v of vectors) expect(flagdVariant(core, v.flagKey), v.flagKey).toBe(v.variant);
  });

  test('flagd-core without a bucketing expression hashes flag key then targetingKey, as the vectors do', () => {
    // flagd's short form buckets `flagKey + targetingKey` and refuses an empty targetingKey.
    const eligible = vectors.filter((v) => v.seed === null && v.value !== '' && isAscii(v.value));
    expect(eligible.length).toBeGreaterThan(20);
    const flags: Record<string, unknown> = {};
    for (const v of eligible)
      flags[v.flagKey] = flagdFlag(
        v.weights,
        v.weights.map((w) => [w.variant, w.weight]),
      );
    const core = new FlagdCore();
    core.setConfigurations(JSON.stringify({ flags }));
    for (const v of eligible) {
      expect(flagdVariant(core, v.flagKey, { targetingKey: v.value }), v.flagKey).toBe(v.variant);
    }
  });

  test.each([
    ['all weights are zero', [0, 0]],
    ['there are no weights', []],
    ['the total exceeds 2147483647, as flagd refuses', [MAX_TOTAL_WEIGHT, 1]],
  ])('picks nothing when %s', (_case, weights) => {
    for (let i = 0; i < 100; i++) expect(bucketOf(bucketTable(weights), 'flag', `user-${i}`)).toBe(-1);
  });

  test('never picks a variant of weight zero and always picks the only weighted one', () => {
    const table = bucketTable([0, 7, 0]);
    for (let i = 0; i < 1000; i++) expect(bucketOf(table, 'flag', `user-${i}`)).toBe(1);
  });

  test('clamps negative weights to zero, as flagd does', () => {
    expect(bucketTable([-5, 10]).cumulative).toEqual([0, 10]);
  });

  test('spreads a 50/30/20 rollout over 100,000 users within one percentage point', () => {
    const table = bucketTable([50, 30, 20]);
    const counts = [0, 0, 0];
    const users = 100_000;
    for (let i = 0; i < users; i++) {
      const index = bucketOf(table, 'checkout-redesign', `user-${i}`);
      counts[index] = (counts[index] ?? 0) + 1;
    }
    const shares = counts.map((count) => (count / users) * 100);
    expect(Math.abs((shares[0] ?? 0) - 50)).toBeLessThan(1);
    expect(Math.abs((shares[1] ?? 0) - 30)).toBeLessThan(1);
    expect(Math.abs((shares[2] ?? 0) - 20)).toBeLessThan(1);
  });
});
