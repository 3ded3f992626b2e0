import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { buildTestApp } from '../support/app.ts';
import { type OpenTestDatabase, testDatabases } from '../support/database.ts';
import { ADMIN_KEY } from '../support/server.ts';

// CORS is decided before any storage is touched: SQLite alone is enough.
const [sqlite] = testDatabases();

async function appWith(
  corsOrigins?: readonly string[],
): Promise<{ app: FastifyInstance; db: OpenTestDatabase }> {
  const db = await (sqlite as NonNullable<typeof sqlite>).open();
  await bootstrap(db.store, ADMIN_KEY);
  const { app } = await buildTestApp(db.store, corsOrigins ? { corsOrigins } : {});
  return { app, db };
}

const preflight = (app: FastifyInstance, url: string, method: string, origin = 'https://shop.example') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, if-none-match, x-flagstaff-environment',
    },
  });

/** Routes by who calls them: browsers on other origins evaluate; management stays on its own origin. */
const ROUTES = [
  ['/ofrep/v1/evaluate/flags', 'POST', 'browsers'],
  ['/ofrep/v1/evaluate/flags/new-checkout', 'POST', 'browsers'],
  ['/v1/flags/new-checkout', 'GET', 'browsers'],
  ['/v1/flags/new-checkout/evaluate', 'POST', 'browsers'],
  ['/v1/evaluate', 'POST', 'browsers'],
  ['/v1/projects', 'GET', 'management'],
  ['/v1/projects/default/flags', 'POST', 'management'],
  ['/v1/flags/flg_123', 'PATCH', 'management'],
  ['/v1/flags/flg_123', 'DELETE', 'management'],
  ['/v1/api-keys', 'POST', 'management'],
] as const;

const routesOf = (callers: 'browsers' | 'management') =>
  ROUTES.filter((route) => route[2] === callers).map(([url, method]) => [url, method] as const);

describe('CORS (docs/product.md §6), default origins', () => {
  let app: FastifyInstance;
  let db: OpenTestDatabase;
  beforeAll(async () => {
    ({ app, db } = await appWith());
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  it.each(routesOf('browsers'))('answers the preflight of %s %s from any origin', async (url, method) => {
    const res = await preflight(app, url, method);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain(method);
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const header of ['authorization', 'content-type', 'if-none-match', 'x-flagstaff-environment']) {
      expect(allowed).toContain(header);
    }
  });

  it('exposes ETag and the rate-limit headers on the response itself, errors included', async () => {
    const ok = await app.inject({
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      headers: {
        origin: 'https://shop.example',
        authorization: `Bearer ${ADMIN_KEY}`,
        'x-flagstaff-project': 'default',
      },
      payload: { context: {} },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase();
    for (const header of [
      'etag',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
    ]) {
      expect(exposed).toContain(header);
    }
    const unauthorised = await app.inject({
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      headers: { origin: 'https://shop.example' },
      payload: { context: {} },
    });
    expect(unauthorised.statusCode).toBe(401);
    expect(unauthorised.headers['access-control-allow-origin']).toBe('*');
  });

  it.each(routesOf('management'))(
    'refuses the preflight of the management route %s %s',
    async (url, method) => {
      const res = await preflight(app, url, method);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.statusCode).toBe(404);
    },
  );

  it('refuses a preflight that names no Origin', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/v1/flags/new-checkout',
      headers: { 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe('Invalid Preflight Request');
  });

  it('gives every response a request id, refusals and unknown routes included; browser routes vary on Origin', async () => {
    const answers = await Promise.all([
      app.inject({
        method: 'GET',
        url: '/v1/flags/new-checkout',
        headers: { origin: 'https://shop.example' },
      }),
      app.inject({ method: 'GET', url: '/v1/nothing-here' }),
      app.inject({ method: 'GET', url: '/v1/flags/a%zz' }),
      app.inject({ method: 'GET', url: '/v1/projects', headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
      preflight(app, '/v1/projects', 'GET'),
    ]);
    expect(answers.map((res) => res.statusCode)).toEqual([401, 404, 400, 200, 404]);
    for (const res of answers) expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(answers.map((res) => res.headers.vary)).toEqual([
      'Origin',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(answers[0]?.headers['access-control-allow-origin']).toBe('*');
  });

  it('sends no CORS headers to a request without Origin (not a browser), and says the answer varies on it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-flagstaff-project': 'default' },
      payload: { context: {} },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']).toBeUndefined();
    // And on Accept-Encoding: the bulk answer is sent compressed when asked (decision 2001).
    expect(res.headers.vary).toBe('Origin, Accept-Encoding');
  });

  it('sends no CORS headers on management responses', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/projects',
      headers: { origin: 'https://shop.example', authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS with FLAGSTAFF_CORS_ORIGINS set', () => {
  let app: FastifyInstance;
  let db: OpenTestDatabase;
  beforeAll(async () => {
    ({ app, db } = await appWith(['https://shop.example', 'https://admin.example']));
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  it('reflects a listed origin and varies on Origin', async () => {
    const res = await preflight(app, '/ofrep/v1/evaluate/flags', 'POST', 'https://admin.example');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://admin.example');
    expect(String(res.headers.vary)).toMatch(/Origin/);
  });

  it('gives an unlisted origin no Access-Control-Allow-Origin, so its browser refuses', async () => {
    const res = await preflight(app, '/ofrep/v1/evaluate/flags', 'POST', 'https://evil.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
