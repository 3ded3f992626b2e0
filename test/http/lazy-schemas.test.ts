import { afterAll, beforeAll, expect, it } from 'vitest';
import { LazySchemas } from '../../src/http/lazy-schemas.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Routes' validators and serializers are compiled on first use (decision 2080): a schema that
// cannot compile would answer 500 on its route's first request instead of stopping the start.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it("a route's first request is validated and serialized by its schemas", async () => {
  const refused = await server.call('POST', '/v1/projects/default/flags', {
    body: { key: 'first', extra: 1 },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.errors).toEqual([{ path: '/extra', message: 'unknown field "extra"' }]);
  const created = await server.call('POST', '/v1/projects/default/flags', { body: { key: 'first' } });
  expect(created.status).toBe(201);
  const read = await server.call('GET', '/v1/projects/default/flags/first');
  expect(read.body).toMatchObject(created.body);
  expect(read.body).toMatchObject({ key: 'first', type: 'boolean', environments: expect.any(Object) });
});

it('every route schema the node has not used yet compiles, and each is compiled once', () => {
  const schemas = LazySchemas.of(server.app);
  expect(schemas).toBeDefined();
  const compiled = schemas?.compileEverySchema() ?? 0;
  // Over a hundred routes, most with a body or query validator and a serializer per status.
  expect(compiled).toBeGreaterThan(200);
  expect(schemas?.compileEverySchema()).toBe(0);
});
