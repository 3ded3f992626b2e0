import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Browsers may call the route from other origins (docs/product.md §6): evaluation and OFREP. */
    browser?: boolean;
  }
}

/** A route URL (`/v1/flags/:flagKey`) as a pattern of the raw URLs that reach it. */
const patternOf = (url: string): string =>
  url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/?]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('\\/');

export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-None-Match',
  'X-Flagstaff-Environment',
  'X-Flagstaff-Project',
];
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
];

const EXPOSED = CORS_EXPOSED_HEADERS.join(', ');
const ALLOWED = CORS_ALLOWED_HEADERS.join(', ');
const METHODS = 'GET, HEAD, POST';
/** Seconds a browser may cache a preflight's answer. */
const MAX_AGE = '600';

/**
 * Adds the CORS headers a request gets, and answers a preflight; true when it answered. Called
 * from the app's one root onRequest hook (see `registerCors`), so it runs before authentication
 * and a 401 or 429 carries them too. The header values are joined once, here, not per request.
 */
export type CorsHeaders = (request: FastifyRequest, reply: FastifyReply) => boolean;

/**
 * CORS for the evaluation and OFREP routes only: preflights answered, the request headers they
 * need allowed, ETag and the rate-limit headers exposed. `origins` is FLAGSTAFF_CORS_ORIGINS
 * (`*` for any). Management routes get no CORS headers, so browsers on other origins cannot
 * call them. CORS headers go only to requests that carry an Origin (browsers' cross-origin
 * requests), so browser routes' answers vary on Origin; shared caches must not mix them.
 * The same headers and statuses @fastify/cors gave with these options (decision 0503), for a
 * fraction of its cost per request (decision 0207).
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): CorsHeaders {
  // The routes that say `config: { browser: true }`, by method, as one pattern each, built as
  // they are registered. Matched by method and raw URL (its query included, so no request
  // splits its URL for CORS), because a preflight names the method and path it asks for before
  // any route is chosen; `PATCH /v1/flags/{id}` shares its path with `GET /v1/flags/{key}` and
  // stays closed.
  const patterns = new Map<string, string[]>();
  const browserPaths = new Map<string, RegExp>();
  app.addHook('onRoute', (route) => {
    if (route.config?.browser !== true) return;
    for (const method of [route.method].flat()) {
      const list = [...(patterns.get(method) ?? []), patternOf(route.url)];
      patterns.set(method, list);
      browserPaths.set(method, new RegExp(`^(?:${list.join('|')})\\/?(?:\\?|$)`));
    }
  });
  const isBrowserRoute = (method: string, url: string): boolean =>
    browserPaths.get(method.toUpperCase())?.test(url) === true;
  const anyOrigin = origins.includes('*');
  const listed = new Set(origins);
  const allowOrigin = (request: FastifyRequest): string | undefined => {
    if (anyOrigin) return '*';
    const origin = request.headers.origin;
    return origin !== undefined && listed.has(origin) ? origin : undefined;
  };
  const addHeaders = (request: FastifyRequest, reply: FastifyReply): void => {
    const origin = allowOrigin(request);
    if (origin !== undefined) reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', EXPOSED);
  };

  // Lets OPTIONS reach the root hook for every path; what is not a browser route's preflight is a 404.
  app.options('*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());

  return (request, reply) => {
    const preflight = request.method === 'OPTIONS';
    // A preflight is about the method it asks for; any other request about its own.
    const method = preflight ? request.headers['access-control-request-method'] : request.method;
    if (typeof method !== 'string' || !isBrowserRoute(method, request.url)) return false;
    // Browsers send Origin with every cross-origin request, and only they read CORS headers:
    // a server-side client (most evaluations) gets none, so the answer varies on Origin.
    reply.header('vary', 'Origin');
    if (!preflight) {
      if (request.headers.origin !== undefined) addHeaders(request, reply);
      return false;
    }
    addHeaders(request, reply);
    if (request.headers.origin === undefined) {
      void reply.code(400).type('text/plain').send('Invalid Preflight Request');
      return true;
    }
    reply.header('access-control-allow-methods', METHODS);
    reply.header('access-control-allow-headers', ALLOWED);
    reply.header('access-control-max-age', MAX_AGE);
    void reply.code(204).header('content-length', '0').send();
    return true;
  };
}
