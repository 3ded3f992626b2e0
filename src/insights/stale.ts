import type { VariantUsage } from '../storage/insights-store.ts';
import { isoOfMinute, MS_PER_MINUTE, minuteOf } from './minutes.ts';

/** How long a flag may go unevaluated, or serve one variant to everyone, before it counts as stale. */
export const STALE_AFTER_DAYS = 30;
const STALE_AFTER_MINUTES = STALE_AFTER_DAYS * 24 * 60;

export type StaleReason = 'not_evaluated' | 'single_variant';

/** Why a flag is stale in one environment, in words a person can act on. */
export interface Staleness {
  readonly reason: StaleReason;
  readonly detail: string;
  /** The one variant served, for `single_variant`. */
  readonly variant?: string | null;
}

/** The usage that belongs to this flag, not to a deleted flag that had its key (rows name flags by key). */
export const usageSince = (usage: readonly VariantUsage[], createdAt: string) => {
  const created = minuteOf(createdAt);
  return usage.filter((u) => u.lastMinute >= created);
};

/** The last minute the flag was evaluated, or undefined when never (usage already filtered by `usageSince`). */
export function lastEvaluatedMinute(usage: readonly VariantUsage[]): number | undefined {
  let last: number | undefined;
  for (const u of usage) if (last === undefined || u.lastMinute > last) last = u.lastMinute;
  return last;
}

/** The first minute of the 30 days the stale rule looks back on from `nowMs`. */
export const staleWindowStart = (nowMs: number): number =>
  Math.floor(nowMs / MS_PER_MINUTE) - STALE_AFTER_MINUTES;

/**
 * docs/product.md §10: a flag at least 30 days old is stale in an environment when it was not evaluated there
 * for 30 days, or when every evaluation there for 30 days served one and the same variant.
 * `usage` is the flag's in that environment, filtered by `usageSince`. The store answers the same
 * rule in SQL for the list's `?stale=` (StaleFilter in storage/store.ts), held to this by a test.
 */
export function staleness(
  flag: { readonly createdAt: string },
  environment: string,
  usage: readonly VariantUsage[],
  nowMs: number,
): Staleness | undefined {
  const windowStart = staleWindowStart(nowMs);
  const created = minuteOf(flag.createdAt);
  if (created > windowStart) return undefined;
  const last = lastEvaluatedMinute(usage);
  if (last === undefined || last < windowStart) {
    return {
      reason: 'not_evaluated',
      detail:
        last === undefined
          ? `Never evaluated in ${environment}.`
          : `Not evaluated in ${environment} since ${isoOfMinute(last)}.`,
    };
  }
  const recent = usage.filter((u) => u.lastMinute >= windowStart);
  const [only] = recent;
  if (recent.length === 1 && only !== undefined && Math.max(only.firstMinute, created) <= windowStart) {
    const served = only.variant === null ? 'no variant' : `only "${only.variant}"`;
    return {
      reason: 'single_variant',
      detail: `Served ${served} to everyone in ${environment} for ${STALE_AFTER_DAYS} days.`,
      variant: only.variant,
    };
  }
  return undefined;
}
