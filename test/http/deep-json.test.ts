import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/domain/json-depth.ts';
import { contextOf, OfrepError } from '../../src/openfeature/ofrep/ofrep-wire.ts';
import { bootstrapAccounts } from '../../src/services/accounts/account-service.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, cookiePair } from '../dashboard/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const DEPTH = 10_000;
/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describeEachDatabase('JSON nested 10,000 deep: 400, never 500 (decision 0008)', (database) => {
  let server: TestServer;
  let flagId: string;
  /** Routes only a signed-in person may call (`/v1/me/…`) get the body as that person. */
  let asPerson: { key: null; headers: Record<string, string> };
  /** Routes only an edge may call (`/v1/edge/…`) get the body from an edge key. */
  let asEdge: { key: string; headers: Record<string, string> };
  beforeAll(async () => {
    server = await startTestServer(database);
    flagId = (await server.call('POST', '/v1/projects/default/flags', { body: { key: 'f' } })).body.id;
    await bootstrapAccounts(server.store, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const signIn = await server.call('POST', '/v1/auth/sign-in', {
      key: null,
      headers: { origin: server.url },
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    asPerson = { key: null, headers: { origin: server.url, cookie: cookiePair(signIn.headers) } };
    const edgeKey = await server.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'edge', role: 'edge' },
    });
    expect(edgeKey.status).toBe(201);
    asEdge = { key: edgeKey.body.secret, headers: {} };
  });
  afterAll(() => server?.close());

  it('refuses a deep body on every route that takes JSON, with a problem naming the limit', async () => {
    const document = (await server.call('GET', '/v1/openapi.json')).body;
    const routes: Array<{ method: string; path: string }> = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, object>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!(operation as { requestBody?: unknown }).requestBody) continue;
        const concrete = path
          .replace(/\{(projectKey|projectIdOrKey|project)\}/, 'default')
          .replace(/\{(environmentKey|environment)\}/, 'production')
          .replace(/\{flagKey\}/, 'f')
          .replace(/\{flagId\}|\{id\}/, flagId)
          .replace(/\{[^}]+\}/g, 'x');
        routes.push({ method: method.toUpperCase(), path: concrete });
      }
    }
    expect(routes.length).toBeGreaterThan(15);
    for (const { method, path } of routes) {
      for (const [contentType, body] of [
        ['application/json', deepObject(DEPTH)],
        ['application/json', deepArray(DEPTH)],
        ['application/merge-patch+json', deepObject(DEPTH)],
      ] as const) {
        if (contentType !== 'application/json' && method !== 'PATCH') continue;
        const caller = path.startsWith('/v1/me/')
          ? asPerson
          : path.startsWith('/v1/edge/')
            ? asEdge
            : { headers: {} };
        const res = await server.call(method, path, {
          ...caller,
          body,
          headers: { ...caller.headers, 'content-type': contentType },
        });
        const answer = `${method} ${path} (${contentType}) → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        if (path.startsWith('/ofrep/')) {
          expect(res.status, answer).toBe(400);
          expect(res.body, answer).toMatchObject({
            errorCode: 'PARSE_ERROR',
            errorDetails: expect.stringContaining('64'),
          });
        } else {
          expect(res.status, answer).toBe(400);
          expect(res.body, answer).toMatchObject({
            code: 'validation_failed',
            detail: expect.stringContaining('64'),
          });
        }
      }
    }
  });

  it('still accepts attributes nested 60 deep', async () => {
    const attributes = JSON.parse(deepObject(60));
    const res = await server.call('POST', '/v1/flags/f/evaluate?project=default', { body: { attributes } });
    expect(res.status).toBe(200);
  });

  it('refuses ?attributes= nested too deep in the query string', async () => {
    const res = await server.call(
      'GET',
      `/v1/flags/f?project=default&attributes=${encodeURIComponent(`{"a":${deepArray(2000)}}`)}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'querystring:/attributes' }],
    });
  });

  it('answers OFREP a deep context as PARSE_ERROR on both routes', async () => {
    for (const path of ['/ofrep/v1/evaluate/flags/f', '/ofrep/v1/evaluate/flags']) {
      const res = await server.call('POST', path, {
        body: `{"context":{"targetingKey":"u","a":${deepObject(DEPTH)}}}`,
        headers: { 'x-flagstaff-project': 'default' },
      });
      expect(res.status, path).toBe(400);
      expect(res.body.errorCode, path).toBe('PARSE_ERROR');
    }
  });
});

describe('depth checks on values that did not arrive as text', () => {
  it('contextOf refuses a context nested deeper than 64 with INVALID_CONTEXT, without recursing', () => {
    const context = JSON.parse(`{"targetingKey":"u","a":${deepObject(DEPTH)}}`);
    let error: unknown;
    try {
      contextOf({ context });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(OfrepError);
    expect(error).toMatchObject({ status: 400, errorCode: 'INVALID_CONTEXT' });
  });

  it('ends on a cycle', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(nestsDeeperThan(cycle)).toBe(true);
  });
});
