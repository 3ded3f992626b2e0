// flagd's own JsonLogic operators, as flagd-core defines them. They receive evaluated arguments and
// the data object (evaluation context plus `$flagd`); `null` means "no answer", which targeting treats as no variant.
import { compare, type SemVer } from 'semver';
import { bucketOf, bucketTable, MAX_TOTAL_WEIGHT } from '../bucketing.ts';
import { parseVersion } from '../semver.ts';
import { get } from './coercion.ts';

/**
 * Marks the data object of one evaluation. flagd-core's operators read their logger off the data
 * they receive and fail without it; inside map/filter/reduce callbacks that data is an element, so
 * flagd's operators fail there. They check for this mark to fail alike.
 */
export const FLAGD_CONTEXT: unique symbol = Symbol('flagd.context');

export function requireFlagdContext(data: unknown): void {
  if (!(data as Record<symbol, unknown>)[FLAGD_CONTEXT])
    throw new TypeError('flagd operator outside the evaluation context');
}

export type BucketVariant = string | number | boolean | null;

/** Variants and weights of a `fractional`, validated and ready to bucket; null when flagd would refuse them. */
export interface Buckets {
  readonly variants: readonly BucketVariant[];
  readonly table: ReturnType<typeof bucketTable>;
}

/** Reads `[variant, weight?]` entries as flagd-core does: weight defaults to 1, must be an integer, negatives count as 0. */
export function toBuckets(entries: readonly unknown[]): Buckets | null {
  const variants: BucketVariant[] = [];
  const weights: number[] = [];
  let total = 0;
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length === 0 || entry.length > 2) return null;
    const variant: unknown = entry[0];
    if (typeof variant === 'string' || typeof variant === 'number' || typeof variant === 'boolean') {
      variants.push(variant);
    } else if (variant === null || variant === undefined) {
      variants.push(null);
    } else {
      return null;
    }
    let weight = 1;
    if (entry.length === 2) {
      const raw: unknown = entry[1];
      if (typeof raw !== 'number' || !Number.isInteger(raw)) return null;
      weight = Math.max(0, raw);
    }
    weights.push(weight);
    total += weight;
  }
  if (total > MAX_TOTAL_WEIGHT) return null;
  return { variants, table: bucketTable(weights) };
}

/** The variant `buckets` assigns to `bucketKey` (flagd v2 bucketing), or null. */
export function pickBucket(buckets: Buckets, bucketKey: string): BucketVariant {
  const index = bucketOf(buckets.table, bucketKey, '');
  return index < 0 ? null : (buckets.variants[index] ?? null);
}

/** Where a `fractional` takes its bucket key from and which entries it splits over, for one evaluation. */
export function fractionalKey(
  args: readonly unknown[],
  data: unknown,
): { key: string; entries: readonly unknown[] } | null {
  requireFlagdContext(data);
  if (args.length < 1) return null;
  const flagd = get(data, '$flagd');
  if (!flagd) return null;
  if (typeof args[0] === 'string') return { key: args[0], entries: args.slice(1) };
  const targetingKey = get(data, 'targetingKey');
  if (!targetingKey) return null;
  return { key: `${get(flagd, 'flagKey')}${targetingKey}`, entries: args };
}

/** `fractional`: deterministic weighted split; an optional first argument (a string) is the bucket key. */
export function fractional(args: readonly unknown[], data: unknown): BucketVariant {
  const source = fractionalKey(args, data);
  if (!source) return null;
  const buckets = toBuckets(source.entries);
  return buckets ? pickBucket(buckets, source.key) : null;
}

/**
 * flagd-core reads any value as `String(value)` with a `v` prefix, partial (`1`, `1.2`) or strict
 * SemVer; parseVersion parses text exactly so (and remembers recent parses, which are costly).
 */
const normalizeVersion = (raw: unknown): SemVer | null => parseVersion(String(raw));

/** `sem_ver`: [version, operator, version] with =, !=, <, <=, >, >=, ^ (same major), ~ (same major and minor). */
export function semVer(args: readonly unknown[]): boolean | null {
  if (args.length !== 3) return null;
  const left = normalizeVersion(args[0]);
  const right = normalizeVersion(args[2]);
  if (!left || !right) return null;
  const order = compare(left, right);
  switch (String(args[1])) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '^':
      return left.major === right.major;
    case '~':
      return left.major === right.major && left.minor === right.minor;
    default:
      return null;
  }
}

/** `starts_with` / `ends_with`: both arguments must be strings, else no answer. */
export function stringAffix(kind: 'starts_with' | 'ends_with', args: readonly unknown[]): boolean | null {
  if (args.length !== 2) return null;
  const [text, affix] = args;
  if (typeof text !== 'string' || typeof affix !== 'string') return null;
  return kind === 'starts_with' ? text.startsWith(affix) : text.endsWith(affix);
}

export const SEM_VER_OPERATORS: readonly string[] = ['=', '!=', '<', '<=', '>', '>=', '^', '~'];
