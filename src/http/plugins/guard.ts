import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import type { ApiKeyService } from '../../services/access/api-key-service.ts';
import { type Arrival, prependHooks, takeArrival } from '../route-arrival.ts';
import { createAccessControl } from './access-control.ts';
import { type Authentication, authentication } from './authentication.ts';
import { type Authorization, authorization, bodyAuthorizationHook } from './authorization.ts';
import { type RateLimitStep, rateLimitStep } from './rate-limit.ts';

/**
 * Guards every route registered after it in `scope` (docs/product.md §5, in this order): authentication
 * (401 with `WWW-Authenticate: Bearer`; failures limited per client address), the principal's
 * rate limit (429), and authorisation (403) before validation (400) and existence (404). The
 * checks are route-level hooks chosen once per route, so a request pays only for its own.
 * Uses the app's access control (`registerAccessControl`); without one, API keys alone.
 */
export function registerGuard(scope: FastifyInstance, apiKeys: ApiKeyService): void {
  const accessControl = scope.hasDecorator('accessControl')
    ? scope.accessControl
    : createAccessControl(apiKeys, undefined);
  const authenticate = authentication(accessControl.authenticators, accessControl.failedAuthentications);
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
