import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import type { Cors } from './plugins/cors.ts';

/** What a route does first with a request; true when it answered it (a preflight). */
export type Arrival = (request: FastifyRequest, reply: FastifyReply) => boolean;

/** The arrival hooks this module made, with the step each runs: the guard may take the step over. */
const arrivals = new WeakMap<object, Arrival>();

/**
 * Every route's first `onRequest` hook, chosen when the route is registered: `X-Request-Id`
 * on every answer (set on arrival, so errors keep it), then on a browser route `Vary: Origin`
 * and the CORS headers, and on `OPTIONS *` the preflight. One root hook did this for every
 * request and tested each URL against the browser routes' patterns; a route knows what it is,
 * so only a preflight matches URLs (docs/decisions/1792). Register before any route. Answers
 * that no route gives (404s, malformed URLs) set `X-Request-Id` where they are made
 * (`plugins/errors.ts`).
 */
export function registerArrivals(app: FastifyInstance, cors: Cors): void {
  const requestId: Arrival = (request, reply) => {
    reply.header('x-request-id', request.id);
    return false;
  };
  const then =
    (step: Arrival): Arrival =>
    (request, reply) => {
      reply.header('x-request-id', request.id);
      return step(request, reply);
    };
  const browserRoute = then(cors.browserRoute);
  const preflight = then(cors.preflight);
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    const arrival = config.preflight ? preflight : config.browser ? browserRoute : requestId;
    const hook: onRequestHookHandler = function arrive(request, reply, done) {
      if (!arrival(request, reply)) done();
    };
    arrivals.set(hook, arrival);
    prependHooks(route, 'onRequest', hook);
  });
}

/**
 * `OPTIONS *`: lets every preflight reach the preflight step; what is not a browser route's
 * preflight is a 404. Register it once the hooks every route gets are in place.
 */
export function registerPreflightRoute(app: FastifyInstance): void {
  app.options('*', { schema: { hide: true }, config: { preflight: true } }, (_request, reply) =>
    reply.callNotFound(),
  );
}

/**
 * Takes the route's arrival hook away and gives its step, for a hook that runs first in its
 * place (the guard of `plugins/authentication.ts`: one hook where there were two, decision 1792).
 */
export function takeArrival(route: RouteOptions): Arrival | undefined {
  const hooks = hooksOf(route, 'onRequest');
  const first = hooks[0] as object | undefined;
  const arrival = first === undefined ? undefined : arrivals.get(first);
  if (arrival !== undefined) (route as { onRequest?: unknown }).onRequest = hooks.slice(1);
  return arrival;
}

type HookName = 'onRequest' | 'preValidation' | 'onResponse';

/** A route's own hooks of a kind, as a list. */
const hooksOf = (route: RouteOptions, name: HookName): unknown[] => [route[name] ?? []].flat();

/** Adds hooks before the route's own; a new array, since Fastify copies GET options for HEAD. */
export function prependHooks(route: RouteOptions, name: HookName, ...hooks: unknown[]): void {
  (route as unknown as Record<string, unknown>)[name] = [...hooks, ...hooksOf(route, name)];
}

/** Adds hooks after the route's own; a new array, as above. */
export function appendHooks(route: RouteOptions, name: HookName, ...hooks: unknown[]): void {
  (route as unknown as Record<string, unknown>)[name] = [...hooksOf(route, name), ...hooks];
}
