import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The routes browsers may call from other origins (SPEC §6): evaluation and OFREP. Matched by
 * method and path, because a preflight names the method and path it asks for before any route
 * is chosen; `PATCH /v1/flags/{id}` shares its path with `GET /v1/flags/{key}` and stays closed.
 */
const BROWSER_ROUTES: readonly (readonly [method: string, path: RegExp])[] = [
  ['GET', /^\/v1\/flags\/[^/]+\/?$/],
  ['HEAD', /^\/v1\/flags\/[^/]+\/?$/],
  ['POST', /^\/v1\/flags\/[^/]+\/evaluate\/?$/],
  ['POST', /^\/v1\/evaluate\/?$/],
  ['POST', /^\/ofrep\/v1\/evaluate\/flags(?:\/[^/]+)?\/?$/],
  ['GET', /^\/ofrep\/v1\/events\/?$/],
];

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

function isBrowserRoute(request: FastifyRequest): boolean {
  const preflightMethod = request.headers['access-control-request-method'];
  const method = (
    request.method === 'OPTIONS' && typeof preflightMethod === 'string' ? preflightMethod : request.method
  ).toUpperCase();
  const path = request.url.split('?', 1)[0] ?? '';
  return BROWSER_ROUTES.some(([m, pattern]) => m === method && pattern.test(path));
}

/**
 * CORS for the evaluation and OFREP routes only: preflights answered, the request headers they
 * need allowed, ETag and the rate-limit headers exposed. `origins` is FLAGSTAFF_CORS_ORIGINS
 * (`*` for any). Management routes get no CORS headers, so browsers on other origins cannot
 * call them.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  const origin: FastifyCorsOptions['origin'] = origins.includes('*') ? '*' : [...origins];
  const open: FastifyCorsOptions = {
    origin,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  };
  const closed: FastifyCorsOptions = { origin: false };
  await app.register(cors, {
    delegator: (request, callback) => callback(null, isBrowserRoute(request) ? open : closed),
  });
}
