import type { Clock } from '../domain/clock.ts';
import { FAILED_AUTHENTICATION_LIMITS } from './failed-authentications.ts';
import type { TokenLeases } from './redis-leases.ts';
import { SharedTokenBuckets } from './shared-token-buckets.ts';
import { type RateLimiter, TokenBuckets } from './token-buckets.ts';

/** The budgets a principal's requests draw from (`config: { rateLimit: 'evaluation' }`). */
export type RateLimitBudget = 'evaluation' | 'management';

/** Each budget that is on: a limit of 0 leaves it out. */
export type Budgets = Readonly<Partial<Record<RateLimitBudget, RateLimiter>>>;

export interface RateLimitOptions {
  /** Requests per second per principal on evaluation routes (FLAGSTAFF_RATE_LIMIT_EVALUATION); 0 disables. */
  readonly evaluation?: number;
  /** Requests per second per principal on management routes (FLAGSTAFF_RATE_LIMIT_MANAGEMENT); 0 disables. */
  readonly management?: number;
  /** Requests that fail authentication, per client address: a burst, then so many per second. */
  readonly failedAuthentication?: { readonly burst: number; readonly perSecond: number };
}

export const DEFAULT_RATE_LIMITS = {
  evaluation: 1000,
  management: 50,
  failedAuthentication: FAILED_AUTHENTICATION_LIMITS,
} as const;

/**
 * The principals' budgets: per node, or shared by every node through Redis (or by the workers of
 * one, through its primary: decision 1988) when `leases` are
 * given (FLAGSTAFF_REDIS_URL, decision 0206).
 */
export function createBudgets(
  limits: Required<Pick<RateLimitOptions, 'evaluation' | 'management'>>,
  clock: Clock,
  leases?: TokenLeases,
): Budgets {
  const budget = (name: RateLimitBudget, perSecond: number): RateLimiter | undefined => {
    if (perSecond <= 0) return undefined;
    return leases === undefined
      ? new TokenBuckets({ capacity: perSecond, perSecond, clock })
      : new SharedTokenBuckets({ name, perSecond, clock, leases });
  };
  const evaluation = budget('evaluation', limits.evaluation);
  const management = budget('management', limits.management);
  return { ...(evaluation && { evaluation }), ...(management && { management }) };
}
