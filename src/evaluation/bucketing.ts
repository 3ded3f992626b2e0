import { murmur3After, murmur3Concat, type PreparedSeed } from './murmur3.ts';

/** flagd's `fractional` yields nothing when weights sum past Int32 max; we mirror it so exports bucket alike. */
export const MAX_TOTAL_WEIGHT = 2147483647;

/** Weights prepared once, so that a pick is one hash and one scan. */
export interface BucketTable {
  readonly totalWeight: number;
  /** cumulative[i] = sum of weights 0..i, each weight truncated to an integer and clamped to ≥ 0 (flagd clamps). */
  readonly cumulative: readonly number[];
}

/** Prepares weights for bucketOf; a table whose total is 0 or above MAX_TOTAL_WEIGHT never picks. */
export function bucketTable(weights: readonly number[]): BucketTable {
  let total = 0;
  // map, not push: an array of exactly this length, kept as long as the snapshot.
  const cumulative = weights.map((weight) => {
    total += Number.isFinite(weight) && weight > 0 ? Math.trunc(weight) : 0;
    return total;
  });
  return { totalWeight: total, cumulative };
}

/**
 * `floor(hash × total / 2^32)`, exact: the product reaches 2^63, past the 2^53 that doubles hold,
 * so the hash is split into 16-bit halves whose partial products stay below 2^48. (BigInt would
 * be exact too, but allocates on every evaluation.)
 */
export function scaleHash(hash: number, total: number): number {
  const high = Math.floor(hash / 65536) * total;
  const low = (hash % 65536) * total;
  return Math.floor((high + Math.floor(low / 65536)) / 65536);
}

/**
 * Index of the weight that flagd's `fractional` (v2) picks for the UTF-8 text `seed + value`,
 * or -1 when none can be picked (total weight 0 or above MAX_TOTAL_WEIGHT).
 */
export function bucketOf(table: BucketTable, seed: string, value: string): number {
  return pickableTotal(table) ? indexOfHash(table, murmur3Concat(seed, value)) : -1;
}

/** bucketOf with the seed's hash state computed once, at compile time (the rollout hot path). */
export function bucketOfPrepared(table: BucketTable, seed: PreparedSeed, value: string): number {
  return pickableTotal(table) ? indexOfHash(table, murmur3After(seed, value)) : -1;
}

const pickableTotal = (table: BucketTable) => table.totalWeight > 0 && table.totalWeight <= MAX_TOTAL_WEIGHT;

function indexOfHash(table: BucketTable, hash: number): number {
  const bucket = scaleHash(hash, table.totalWeight);
  const cumulative = table.cumulative;
  for (let i = 0; i < cumulative.length; i++) {
    if ((cumulative[i] as number) > bucket) return i;
  }
  return -1;
}
