import { type Clock, systemClock } from '../domain/clock.ts';
import { processServerSecret, type ServerSecret } from '../domain/server-secret.ts';
import type { KeyRegistry } from '../plane/key-registry.ts';
import type { ApiKeyStore, FlagStore, PendingChangeRole, ProjectStore } from '../storage/store.ts';
import { AccessChecks, type ProjectReferences } from './access-checks.ts';
import { Admission } from './admission.ts';
import { ApiKeyAuthentication, type LegacySyncCredentials } from './api-key-authentication.ts';
import { createBudgets, DEFAULT_RATE_LIMITS, type RateLimitOptions } from './budgets.ts';
import { FailedAuthentications } from './failed-authentications.ts';
import type { TokenLeases } from './redis-leases.ts';

export interface AdmissionOptions {
  readonly rateLimits?: RateLimitOptions;
  /** For expiry and the buckets; tests pass a fake one. */
  readonly clock?: Clock;
  /** FLAGSTAFF_REDIS_URL: budgets shared by every node (decision 0206), or by a node's workers (decision 1988); absent, per process. */
  readonly sharedLimits?: TokenLeases | undefined;
  /** The key sync credentials are derived with (docs/decisions/1880); unset, one made for this process. */
  readonly serverSecret?: ServerSecret;
  /** FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL, and who hears of each use (decision 1880). */
  readonly legacySyncCredentials?: LegacySyncCredentials | undefined;
}

/** What admission reads: the key registry, and the project references resolved so far. */
export interface AdmissionSources {
  readonly keys: KeyRegistry;
  readonly references?: ProjectReferences;
}

/** Admission over the node's keys in memory and the store's projects and resources. */
export function createAdmission(
  store: ProjectStore & FlagStore & ApiKeyStore & PendingChangeRole,
  sources: AdmissionSources,
  options: AdmissionOptions = {},
): Admission {
  const clock = options.clock ?? systemClock;
  const limits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  return new Admission({
    keys: new ApiKeyAuthentication(
      sources.keys,
      clock,
      options.serverSecret ?? processServerSecret(),
      options.legacySyncCredentials,
    ),
    checks: new AccessChecks(store, sources.references),
    budgets: createBudgets(limits, clock, options.sharedLimits),
    failedAuthentications: new FailedAuthentications(limits.failedAuthentication, clock),
  });
}
