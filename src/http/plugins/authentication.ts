import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import type { Principal } from '../../domain/api-key.ts';
import { systemClock } from '../../domain/clock.ts';
import type { AccessChecks, Grant } from '../../services/access.ts';
import type { ApiKeyService } from '../../services/api-key-service.ts';
import {
  FAILED_AUTHENTICATION_LIMITS,
  FailedAuthentications,
} from '../../services/failed-authentications.ts';
import { hashSecret } from '../../services/secrets.ts';
import { type Problem, problem, sendProblem } from '../problem.ts';
import type { RouteAccess } from '../route-access.ts';
import { type Arrival, prependHooks, takeArrival } from '../route-arrival.ts';
import {
  type Bucket,
  type Clock,
  type RateLimitBudget,
  type RateLimiter,
  type RateLimitStep,
  rateLimitStep,
  sendRateLimited,
  setRateLimitHeaders,
  TokenBuckets,
} from './rate-limit.ts';
import type { RedisLeases } from './redis-leases.ts';
import { SharedTokenBuckets } from './shared-token-buckets.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on every /v1 and /ofrep request that gets past it. */
    principal?: Principal;
    /** What the route's access check established (route-access.ts), for the use case to trust. */
    grant?: Grant;
  }
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

/**
 * One way to find who is calling. `credential` reads the request's credentials of this kind
 * without I/O and names them by a hash (never the secret itself); undefined when the request
 * carries none, so the next authenticator is tried. `verify` finds the principal, or answers
 * a problem (401 unknown or expired; 403 e.g. a session used from another origin).
 */
export interface Authenticator {
  credential(request: FastifyRequest): string | undefined;
  verify(
    request: FastifyRequest,
    credential: string,
  ): Principal | Problem | undefined | Promise<Principal | Problem | undefined>;
  /** The detail of the 401 when `verify` finds nobody. */
  readonly rejection: string;
}

/** The secret of `Authorization: Bearer <secret>`, or undefined when the header is absent or another scheme. */
export function bearerSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * `Authorization: Bearer fsk_…`, looked up in the node's in-memory keys (decision 0201). A
 * client sends the same header on every request of a kept-alive connection, so the hash of
 * the header the connection sent last is kept with the connection, and a repeat costs a string
 * comparison instead of a SHA-256 (decision 0207). Revocation and expiry are still checked on
 * every request: only the hash is remembered, never whether it was valid.
 */
export function apiKeyAuthenticator(apiKeys: ApiKeyService): Authenticator {
  const lastHashed = new WeakMap<object, { readonly header: string; readonly secretHash: string }>();
  return {
    credential(request) {
      const header = request.headers.authorization;
      if (header === undefined) return undefined;
      const connection = request.raw.socket;
      const last = lastHashed.get(connection);
      if (last?.header === header) return last.secretHash;
      const secret = bearerSecret(request);
      if (secret === undefined) return undefined;
      const secretHash = hashSecret(secret);
      lastHashed.set(connection, { header, secretHash });
      return secretHash;
    },
    verify: (_request, secretHash) => apiKeys.principalFor(secretHash),
    rejection: 'The API key is unknown, revoked or expired.',
  };
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

/** Makes one access control the app's, for every scope that then calls `registerAuthentication`. */
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

/**
 * Guards every route registered after it in `scope` (docs/product.md §5, in this order): authentication
 * (401 with `WWW-Authenticate: Bearer`; failures limited per client address), the principal's
 * rate limit (429), and authorisation (403) before validation (400) and existence (404). The
 * checks are route-level hooks chosen once per route, so a request pays only for its own.
 * Uses the app's access control (`registerAccessControl`); without one, API keys alone.
 */
export function registerAuthentication(scope: FastifyInstance, apiKeys: ApiKeyService): void {
  const accessControl = scope.hasDecorator('accessControl')
    ? scope.accessControl
    : createAccessControl(apiKeys, undefined);
  const authenticate = authentication(accessControl);
  scope.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (config.access === 'public') return;
    const method = String(route.method);
    const access = config.access;
    const rateLimit = config.rateLimit ?? access?.rateLimit ?? 'management';
    const buckets = rateLimit === false ? undefined : accessControl.budgets[rateLimit];
    const limit =
      buckets === undefined || rateLimit === false ? undefined : rateLimitStep(buckets, rateLimit);
    const authorize =
      access === undefined || accessControl.checks === undefined
        ? undefined
        : authorization(accessControl.checks, access);
    // The route's arrival step (request id, CORS) runs first, in the guard's one hook.
    const arrival = takeArrival(route);
    prependHooks(route, 'onRequest', guardHook(arrival, authenticate, limit, authorize));
    if (access?.body !== undefined && accessControl.checks !== undefined) {
      prependHooks(route, 'preValidation', bodyAuthorizationHook(access));
    }
    if (method !== 'HEAD') accessControl.routes.push({ method, url: route.url, access, rateLimit });
  });
}

/**
 * The route's one onRequest hook: its arrival step (`route-arrival.ts`: the request id, CORS),
 * authentication, then the rate limit, then authorisation, each answering when it refuses. One
 * synchronous callback hook rather than four (one of them async): on the evaluation path every
 * hook and every promise is a measurable share of a request (decisions 0207, 1792). Only a
 * pending key load or a project lookup by key makes it wait.
 */
function guardHook(
  arrival: Arrival | undefined,
  authenticate: Authentication,
  limit: RateLimitStep | undefined,
  authorize: Authorization | undefined,
): onRequestHookHandler {
  const afterAuthentication = (
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ) => {
    if (limit !== undefined && !limit(request, reply)) return;
    if (authorize === undefined) done();
    else authorize(request, done);
  };
  return function guard(request, reply, done) {
    if (arrival?.(request, reply)) return;
    const authenticated = authenticate(request, reply);
    if (authenticated === true) afterAuthentication(request, reply, done);
    else if (authenticated !== false) {
      authenticated.then((ok) => {
        if (ok) afterAuthentication(request, reply, done);
      }, done);
    }
  };
}

/** Finds the principal (true), or answers 401/403/429 (false). */
type Authentication = (request: FastifyRequest, reply: FastifyReply) => boolean | Promise<boolean>;

function authentication(accessControl: AccessControl): Authentication {
  const { authenticators, failedAuthentications } = accessControl;
  const failures = failedAuthentications.buckets;

  const tooManyFailures = (reply: FastifyReply, bucket: Bucket): false => {
    sendRateLimited(reply, failures, bucket, 'Too many failed authentications from this address.');
    return false;
  };

  /** A 401, or a 429 once the client address has used up its failure budget. */
  const fail = (request: FastifyRequest, reply: FastifyReply, detail: string): false => {
    const bucket = failedAuthentications.failed(request.ip);
    setRateLimitHeaders(reply, failures, bucket);
    // Never the credential itself, nor its hash: the reason and the address are enough.
    request.log.debug({ address: request.ip, reason: detail }, 'authentication failed');
    if (!bucket.allowed) return tooManyFailures(reply, bucket);
    sendProblem(reply, problem('unauthorized', detail));
    return false;
  };

  /** What to do with what an authenticator's `verify` found. */
  const settle = (
    request: FastifyRequest,
    reply: FastifyReply,
    authenticator: Authenticator,
    credential: string,
    found: Principal | Problem | undefined,
  ): boolean => {
    if (found === undefined) return fail(request, reply, authenticator.rejection);
    if ('status' in found) {
      if (found.status === 401) return fail(request, reply, found.detail);
      sendProblem(reply, found);
      return false;
    }
    failedAuthentications.succeeded(credential);
    request.principal = found;
    return true;
  };

  return function authenticate(request, reply) {
    for (const authenticator of authenticators) {
      const credential = authenticator.credential(request);
      if (credential === undefined) continue;
      // An address over its failure budget gets no answer for a credential it has not proven,
      // so guessing stays slow; credentials that worked recently still pass (clients behind one
      // proxy), without reading the address (a kept-alive client's every request).
      const overBudget = failedAuthentications.trusts(credential)
        ? undefined
        : failedAuthentications.refuses(request.ip, credential);
      if (overBudget !== undefined) {
        setRateLimitHeaders(reply, failures, overBudget);
        return tooManyFailures(reply, overBudget);
      }
      // API keys answer synchronously from memory: no promise, unless a lookup is still pending.
      const verified = authenticator.verify(request, credential);
      if (!(verified instanceof Promise)) return settle(request, reply, authenticator, credential, verified);
      return verified.then((found) => settle(request, reply, authenticator, credential, found));
    }
    return fail(request, reply, 'Send the API key as "Authorization: Bearer <key>".');
  };
}

/** Establishes the request's grant, then `done`; or `done(error)` with the 403/404 to answer. */
type Authorization = (request: FastifyRequest, done: HookHandlerDoneFunction) => void;

/**
 * 403 before the request is validated: the role, the project (looked up only when a project key
 * names a project by key or a resource by id) and the environments named in the path or query.
 */
function authorization(checks: AccessChecks, access: RouteAccess): Authorization {
  return function authorize(request, done) {
    const principal = request.principal;
    if (principal === undefined) {
      done();
      return;
    }
    let grant: Grant | Promise<Grant>;
    try {
      grant = checks.check(principal, access.role, access.target(request), access.environments?.(request));
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!(grant instanceof Promise)) {
      request.grant = grant;
      done();
      return;
    }
    grant.then((granted) => {
      request.grant = granted;
      done();
    }, done);
  };
}

/** The environments (and key powers) named in the body: once it is parsed, before it is validated. */
function bodyAuthorizationHook(access: RouteAccess) {
  const check = access.body;
  return function authorizeBody(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    const principal = request.principal;
    if (principal === undefined || check === undefined) {
      done();
      return;
    }
    try {
      check(principal, request.body, request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
