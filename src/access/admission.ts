import type { Principal, Role } from '../domain/api-key.ts';
import { DomainError, unauthorized } from '../domain/errors.ts';
import type { KnownKey } from '../plane/key-registry.ts';
import type { AccessChecks } from './access-checks.ts';
import type { AccessTarget, EnvironmentScope, Grant } from './access-rules.ts';
import { type ApiKeyAuthentication, keyEndsAt } from './api-key-authentication.ts';
import type { Budgets, RateLimitBudget } from './budgets.ts';
import type { FailedAuthentications } from './failed-authentications.ts';
import type { Bucket, RateLimiter } from './token-buckets.ts';

/**
 * What a caller presents. `id` names it by a hash (never the secret): a credential that
 * authenticated recently passes an address over its failure budget. Each way in reads its own
 * kind; `verified` is one whose check needs the way in (a session cookie and its origin).
 */
export type Credential =
  /** `Authorization: Bearer fsk_…`: `id` is the secret's hash, looked up in the key registry. */
  | { readonly kind: 'api-key'; readonly id: string }
  /** A flagd sync credential derived for `scope` (`<project>/<environment>`, decision 1771). */
  | { readonly kind: 'sync'; readonly id: string; readonly secret: string; readonly scope: string }
  /** A signed stream token naming its key (`id`); `signedBy` checks its signature with the key's secret hash. */
  | { readonly kind: 'stream'; readonly id: string; signedBy(secretHash: string): boolean }
  | {
      readonly kind: 'verified';
      readonly id: string;
      /** The detail of the 401 when `verify` finds nobody. */
      readonly rejection: string;
      verify(): Principal | DomainError | undefined | Promise<Principal | DomainError | undefined>;
    }
  /** Nothing presented: `rejection` says what to send. */
  | { readonly kind: 'none'; readonly rejection: string };

/**
 * Who is calling, as admission finds it. A way in passes an object of its own (an HTTP request
 * is one as it is, so an evaluation allocates nothing for it); admission fills in the rest.
 */
export interface Caller {
  /** The client address: failed authentications are limited per address (decision 0202). */
  readonly ip: string;
  principal?: Principal | undefined;
  /** What the access check established, for the use case to trust (access-rules.ts). */
  grant?: Grant | undefined;
  /** The caller's bucket of the budget it drew from, for the RateLimit headers. */
  bucket?: Bucket | undefined;
  /** Unix ms when the credential stops working (its key's expiry); streams end then. */
  endsAt?: number | undefined;
}

/**
 * What a way in demands, made once per route (or per call where the call names its target):
 * the least role (undefined: any principal, the use case decides), the budget, and what the
 * call acts on, read from the caller once its principal is known (a key bound to one
 * environment evaluates that one by default).
 */
export interface AccessRule<C extends Caller = Caller> {
  readonly role: Role | undefined;
  readonly budget: RateLimitBudget | false;
  /** What the call acts on; absent: nothing in particular. */
  readonly target?: ((caller: C) => AccessTarget) | undefined;
  /** The environments it touches; absent: none in particular. */
  readonly environments?: ((caller: C) => EnvironmentScope) | undefined;
}

/** Why a caller was not admitted: 401, 403 or 429, with the budget that refused it, for its headers. */
export class Refusal {
  readonly error: DomainError;
  readonly limiter: RateLimiter | undefined;
  readonly bucket: Bucket | undefined;

  constructor(error: DomainError, limiter?: RateLimiter, bucket?: Bucket) {
    this.error = error;
    this.limiter = limiter;
    this.bucket = bucket;
  }
}

/** undefined: admitted (the caller's principal and grant are set); else why not. */
export type Verdict = Refusal | undefined;

type Found = Principal | DomainError | undefined;

const NOTHING_IN_PARTICULAR: AccessTarget = { kind: 'any' };

const UNKNOWN_KEY = 'The API key is unknown, revoked or expired.';
const UNKNOWN_SYNC_CREDENTIAL =
  'The sync credential in the selector is unknown, revoked, expired or for another environment.';
const UNKNOWN_STREAM_TOKEN = 'The stream token is not valid, or its API key was revoked or has expired.';

export interface AdmissionParts {
  readonly keys: ApiKeyAuthentication;
  readonly checks: AccessChecks;
  readonly budgets: Budgets;
  /** Per client address, shared by every way in: a guesser gets one budget across HTTP and gRPC. */
  readonly failedAuthentications: FailedAuthentications;
}

/**
 * Admission, the one entry point of every way in (HTTP, event streams, flagd's gRPC sync, the
 * edge), in the order of docs/product.md §5: credential → principal (401; failures limited per
 * address, 429) → the principal's budget (429) → may it act on the target (403). Synchronous
 * whenever memory can answer, so an evaluation waits on nothing and allocates nothing here.
 */
export class Admission {
  readonly budgets: Budgets;
  readonly failedAuthentications: FailedAuthentications;
  readonly keys: ApiKeyAuthentication;
  readonly #checks: AccessChecks;

  constructor(parts: AdmissionParts) {
    this.keys = parts.keys;
    this.#checks = parts.checks;
    this.budgets = parts.budgets;
    this.failedAuthentications = parts.failedAuthentications;
  }

  admit<C extends Caller>(
    caller: C,
    credential: Credential,
    rule: AccessRule<C>,
  ): Verdict | Promise<Verdict> {
    if (credential.kind === 'none') return this.#failed(caller, credential.rejection);
    const failures = this.failedAuthentications;
    // An address over its failure budget gets no answer for a credential it has not proven,
    // so guessing stays slow; credentials that worked recently still pass (clients behind one
    // proxy), without reading the address (a kept-alive client's every request).
    if (!failures.trusts(credential.id)) {
      const over = failures.refuses(caller.ip, credential.id);
      if (over !== undefined) return this.#tooManyFailures(over);
    }
    const found = this.#verify(caller, credential);
    if (!(found instanceof Promise)) return this.#admitFound(caller, credential, found, rule);
    return found.then((principal) => this.#admitFound(caller, credential, principal, rule));
  }

  #verify(caller: Caller, credential: Exclude<Credential, { kind: 'none' }>): Found | Promise<Found> {
    switch (credential.kind) {
      case 'api-key':
        return this.keys.principalFor(credential.id);
      case 'sync':
        return this.keys
          .syncKey(credential.secret, credential.scope)
          .then((key) => this.#keyFound(caller, key, undefined));
      case 'stream':
        return this.keys
          .keyById(credential.id)
          .then((key) => this.#keyFound(caller, key, credential.signedBy));
      case 'verified':
        return credential.verify();
    }
  }

  /** A key named by a derived credential: its principal, and when it stops working. */
  #keyFound(caller: Caller, key: KnownKey | undefined, signedBy?: (secretHash: string) => boolean): Found {
    if (key === undefined || (signedBy !== undefined && !signedBy(key.secretHash))) return undefined;
    caller.endsAt = keyEndsAt(key);
    return key.principal;
  }

  #admitFound<C extends Caller>(
    caller: C,
    credential: Exclude<Credential, { kind: 'none' }>,
    found: Found,
    rule: AccessRule<C>,
  ): Verdict | Promise<Verdict> {
    if (found === undefined) return this.#failed(caller, rejectionOf(credential));
    if (found instanceof DomainError) {
      return found.code === 'unauthorized' ? this.#failed(caller, found.message) : new Refusal(found);
    }
    this.failedAuthentications.succeeded(credential.id);
    caller.principal = found;
    const budget = rule.budget;
    const limiter = budget === false ? undefined : this.budgets[budget];
    if (limiter !== undefined && budget !== false) {
      const bucket = limiter.take(found.id);
      caller.bucket = bucket;
      if (!bucket.allowed) return rateLimited(limiter, bucket, rateLimitDetail(budget, limiter));
    }
    if (rule.role === undefined) return undefined;
    return this.#authorize(caller, found, rule.role, rule);
  }

  #authorize<C extends Caller>(
    caller: C,
    principal: Principal,
    role: Role,
    rule: AccessRule<C>,
  ): Verdict | Promise<Verdict> {
    let grant: Grant | Promise<Grant>;
    try {
      const target = rule.target === undefined ? NOTHING_IN_PARTICULAR : rule.target(caller);
      grant = this.#checks.check(principal, role, target, rule.environments?.(caller));
    } catch (error) {
      return refusalOf(error);
    }
    if (!(grant instanceof Promise)) {
      caller.grant = grant;
      return undefined;
    }
    return grant.then((granted) => {
      caller.grant = granted;
      return undefined;
    }, refusalOf);
  }

  /** A 401, or a 429 once the client address has used up its failure budget. */
  #failed(caller: Caller, detail: string): Refusal {
    const failures = this.failedAuthentications.buckets;
    const bucket = this.failedAuthentications.failed(caller.ip);
    if (!bucket.allowed) return this.#tooManyFailures(bucket);
    return new Refusal(unauthorized(detail), failures, bucket);
  }

  #tooManyFailures(bucket: Bucket): Refusal {
    return rateLimited(
      this.failedAuthentications.buckets,
      bucket,
      'Too many failed authentications from this address.',
    );
  }
}

function rejectionOf(credential: Exclude<Credential, { kind: 'none' }>): string {
  switch (credential.kind) {
    case 'api-key':
      return UNKNOWN_KEY;
    case 'sync':
      return UNKNOWN_SYNC_CREDENTIAL;
    case 'stream':
      return UNKNOWN_STREAM_TOKEN;
    case 'verified':
      return credential.rejection;
  }
}

/** A domain error (403, 404) refuses; anything else (the database away) is not a refusal and goes on up. */
function refusalOf(error: unknown): Refusal {
  if (error instanceof DomainError) return new Refusal(error);
  throw error;
}

const rateLimitDetail = (budget: RateLimitBudget, limiter: RateLimiter) =>
  `This API key exceeded its ${budget} rate limit of ${limiter.perSecond} requests per second.`;

/** The 429 of docs/product.md §5, saying when to retry. */
function rateLimited(limiter: RateLimiter, bucket: Bucket, detail: string): Refusal {
  const seconds = limiter.retryAfterSeconds(bucket);
  return new Refusal(new DomainError('rate_limited', `${detail} Retry in ${seconds} s.`), limiter, bucket);
}
