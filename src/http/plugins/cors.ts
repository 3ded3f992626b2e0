import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Browsers may call the route from other origins (docs/product.md §6): evaluation and OFREP. */
    browser?: boolean;
    /** The one route that answers every CORS preflight (`OPTIONS *`). */
    preflight?: boolean;
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
 * Adds the CORS headers a request gets, or answers a preflight; true when it answered. Run on
 * arrival (`route-arrival.ts`), before authentication, so a 401 or 429 carries them too. The
 * header values are joined once, here, not per request.
 */
export type CorsStep = (request: FastifyRequest, reply: FastifyReply) => boolean;

/** What a browser route and the preflight route do on arrival (`route-arrival.ts` runs them). */
export interface Cors {
  /** On a browser route (`config: { browser: true }`): `Vary: Origin`, and the CORS headers for a request with `Origin`. */
  readonly browserRoute: CorsStep;
  /** On `OPTIONS *` (`route-arrival.ts` adds it): answers the preflight of a browser route; other preflights go on to a 404. */
  readonly preflight: CorsStep;
}

/**
 * CORS for the evaluation and OFREP routes only: preflights answered, the request headers they
 * need allowed, ETag and the rate-limit headers exposed. `origins` is FLAGSTAFF_CORS_ORIGINS
 * (`*` for any). Management routes get no CORS headers, so browsers on other origins cannot
 * call them. CORS headers go only to requests that carry an Origin (browsers' cross-origin
 * requests), so browser routes' answers vary on Origin; shared caches must not mix them.
 * The same headers and statuses @fastify/cors gave with these options (decision 0503), for a
 * fraction of its cost per request (decisions 0207, 1792).
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): Cors {
  // The routes that say `config: { browser: true }`, by method, as one pattern each, built as
  // they are registered. A preflight names the method and path it asks for before any route is
  // chosen, so preflights are matched by method and raw URL (its query included, so no request
  // splits its URL for CORS); `PATCH /v1/flags/{id}` shares its path with `GET /v1/flags/{key}`
  // and stays closed. Any other request knows its route: the route's own arrival says whether it is a browser route.
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

  return {
    browserRoute(request, reply) {
      // Browsers send Origin with every cross-origin request, and only they read CORS headers:
      // a server-side client (most evaluations) gets none, so the answer varies on Origin.
      reply.header('vary', 'Origin');
      if (request.headers.origin !== undefined) addHeaders(request, reply);
      return false;
    },
    preflight(request, reply) {
      // A preflight is about the method it asks for.
      const method = request.headers['access-control-request-method'];
      if (typeof method !== 'string' || !isBrowserRoute(method, request.url)) return false;
      reply.header('vary', 'Origin');
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
    },
  };
}
