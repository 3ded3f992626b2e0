import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../domain/clock.ts';
import type { ApiKeyService } from '../../services/access/api-key-service.ts';
import {
  FAILED_AUTHENTICATION_LIMITS,
  FailedAuthentications,
} from '../../services/access/failed-authentications.ts';
import type { AccessChecks } from '../../services/core/access.ts';
import type { RouteAccess } from '../route-access.ts';
import { type Authenticator, apiKeyAuthenticator } from './authentication.ts';
import { type Clock, type RateLimitBudget, type RateLimiter, TokenBuckets } from './rate-limit.ts';
import type { RedisLeases } from './redis-leases.ts';
import { SharedTokenBuckets } from './shared-token-buckets.ts';

// What every guarded scope of one app shares: the authenticators, the access checks and the
// rate-limit budgets, made once when the app is built (build-app.ts).

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (see route-access.ts); `'public'`: no authentication at all. */
    access?: RouteAccess | 'public';
    /** The rate-limit budget the route draws from; default management; `false`: not limited. */
    rateLimit?: RateLimitBudget | false;
  }
  interface FastifyInstance {
    accessControl: AccessControl;
  }
}

export interface RateLimitOptions {
  /** Requests per second per principal on evaluation routes (FLAGSTAFF_RATE_LIMIT_EVALUATION); 0 disables. */
  readonly evaluation?: number;
  /** Requests per second per principal on management routes (FLAGSTAFF_RATE_LIMIT_MANAGEMENT); 0 disables. */
  readonly management?: number;
  /** Requests that fail authentication, per client address: a burst, then so many per second. */
  readonly failedAuthentication?: { readonly burst: number; readonly perSecond: number };
}

export interface AccessControlOptions {
  /** Tried in order after API keys; the first that finds credentials of its kind decides. */
  readonly authenticators?: readonly Authenticator[];
  readonly rateLimits?: RateLimitOptions;
  /** For the rate-limit buckets; tests pass a fake one. */
  readonly clock?: Clock;
  /** FLAGSTAFF_REDIS_URL: budgets shared by every node (decision 0206); absent, per node. */
  readonly sharedLimits?: RedisLeases;
}

/** A route the access hooks guard, with what it demands: the authorisation matrix test walks these. */
export interface GuardedRoute {
  readonly method: string;
  readonly url: string;
  readonly access: RouteAccess | undefined;
  readonly rateLimit: RateLimitBudget | false;
}

/** What every guarded scope of one app shares: the authenticators and the rate-limit buckets. */
export interface AccessControl {
  readonly authenticators: readonly Authenticator[];
  /** Authorisation before validation; absent, routes are left to their use cases. */
  readonly checks: AccessChecks | undefined;
  readonly budgets: Readonly<Partial<Record<RateLimitBudget, RateLimiter>>>;
  /** Per client address, for requests that fail authentication (shared with flagd's gRPC sync). */
  readonly failedAuthentications: FailedAuthentications;
  readonly clock: Clock;
  readonly routes: GuardedRoute[];
}

export const DEFAULT_RATE_LIMITS = {
  evaluation: 1000,
  management: 50,
  failedAuthentication: FAILED_AUTHENTICATION_LIMITS,
} as const;

export function createAccessControl(
  apiKeys: ApiKeyService,
  checks: AccessChecks | undefined,
  options: AccessControlOptions = {},
): AccessControl {
  const clock = options.clock ?? systemClock;
  const limits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  const leases = options.sharedLimits;
  const budget = (name: RateLimitBudget, perSecond: number): RateLimiter | undefined => {
    if (perSecond <= 0) return undefined;
    return leases === undefined
      ? new TokenBuckets({ capacity: perSecond, perSecond, clock })
      : new SharedTokenBuckets({ name, perSecond, clock, leases });
  };
  const evaluation = budget('evaluation', limits.evaluation);
  const management = budget('management', limits.management);
  return {
    authenticators: [apiKeyAuthenticator(apiKeys), ...(options.authenticators ?? [])],
    checks,
    budgets: { ...(evaluation && { evaluation }), ...(management && { management }) },
    failedAuthentications: new FailedAuthentications(limits.failedAuthentication, clock),
    clock,
    routes: [],
  };
}

/** Makes one access control the app's, for every scope that then calls `registerGuard` (guard.ts). */
export function registerAccessControl(
  app: FastifyInstance,
  apiKeys: ApiKeyService,
  checks: AccessChecks,
  options: AccessControlOptions = {},
): AccessControl {
  const accessControl = createAccessControl(apiKeys, checks, options);
  app.decorate('accessControl', accessControl);
  return accessControl;
}
