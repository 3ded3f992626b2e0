import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import type { AccessRule, Admission, Verdict } from '../../access/admission.ts';
import { type Arrival, prependHooks, takeArrival } from '../route-arrival.ts';
import { nulInPathOrQuery } from '../validation.ts';
import { type Authenticator, credentialOf, syncCredentialOf } from './authentication.ts';
import { bodyAuthorizationHook } from './authorization.ts';
import { sendRefusal, setRateLimitHeaders } from './rate-limit.ts';

/**
 * Guards every route registered after it in `scope` with the app's admission (docs/product.md
 * §5, in this order): authentication (401 with `WWW-Authenticate: Bearer`; failures limited per
 * client address), the principal's rate limit (429), and authorisation (403) before validation
 * (400) and existence (404). The route's rule is made once, when it is registered, so a request
 * pays only for its own checks.
 */
export function registerGuard(scope: FastifyInstance): void {
  const accessControl = scope.accessControl;
  scope.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (config.access === 'public') return;
    const method = String(route.method);
    const access = config.access;
    const rateLimit = config.rateLimit ?? access?.rateLimit ?? 'management';
    const rule: AccessRule<FastifyRequest> = {
      role: access?.role,
      budget: rateLimit,
      target: access?.target,
      environments: access?.environments,
    };
    // The route's arrival step (request id, CORS) runs first, in the guard's one hook.
    const arrival = takeArrival(route);
    const hook = guardHook(
      arrival,
      accessControl.admission,
      accessControl.authenticators,
      rule,
      access?.syncScope,
    );
    prependHooks(route, 'onRequest', hook);
    if (access?.body !== undefined) prependHooks(route, 'preValidation', bodyAuthorizationHook(access));
    if (method !== 'HEAD') accessControl.routes.push({ method, url: route.url, access, rateLimit });
  });
}

/**
 * The route's one onRequest hook: its arrival step (`route-arrival.ts`: the request id, CORS),
 * then admission, answering when it refuses. One synchronous callback hook rather than four
 * (one of them async): on the evaluation path every hook and every promise is a measurable
 * share of a request (decisions 0207, 1792). Only a pending key load or a project lookup by key
 * makes it wait.
 */
function guardHook(
  arrival: Arrival | undefined,
  admission: Admission,
  authenticators: readonly Authenticator[],
  rule: AccessRule<FastifyRequest>,
  syncScope?: (request: FastifyRequest) => string,
): onRequestHookHandler {
  // A flagd sync credential reads one environment's definitions: an evaluator's right (decision 1974).
  const syncRule: AccessRule<FastifyRequest> = { ...rule, role: 'evaluator' };
  const limiter = rule.budget === false ? undefined : admission.budgets[rule.budget];
  const settle = (
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
    verdict: Verdict,
  ) => {
    // The principal's budget, on every answer once it drew a token (a refusal by a budget sets its own).
    const bucket = request.bucket;
    if (bucket !== undefined && limiter !== undefined && verdict?.limiter === undefined) {
      setRateLimitHeaders(reply, limiter, bucket);
    }
    if (verdict === undefined) done();
    // A 403 or 404 of the access check goes to the scope's error handler (SCIM answers its own form).
    else if (verdict.limiter === undefined) done(verdict.error);
    else sendRefusal(request, reply, verdict);
  };
  // Nothing is named with a NUL, and looking one up fails on PostgreSQL: 400 before the lookup (decision 1900).
  const looksUp = rule.target !== undefined;
  return function guard(request, reply, done) {
    if (arrival?.(request, reply)) return;
    const nul = looksUp ? nulInPathOrQuery(request) : undefined;
    if (nul !== undefined) {
      done(nul);
      return;
    }
    const sync = syncScope === undefined ? undefined : syncCredentialOf(request, syncScope(request));
    if (sync !== undefined) request.admittedBySyncCredential = true;
    const credential = sync ?? credentialOf(authenticators, request);
    const verdict = admission.admit(request, credential, sync === undefined ? rule : syncRule);
    if (!(verdict instanceof Promise)) settle(request, reply, done, verdict);
    else verdict.then((found) => settle(request, reply, done, found), done);
  };
}
