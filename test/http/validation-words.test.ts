import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEY_RULE } from '../../src/domain/keys.ts';
import { LazySchemas } from '../../src/http/lazy-schemas.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('schema errors read as words at their field: the key rule, "is required", and the length limit', async () => {
  const res = await server.call('POST', '/v1/projects/default/flags', {
    body: { key: 'not a key!', name: '', description: 'x'.repeat(2001) },
  });
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual(
    expect.arrayContaining([
      { path: '/key', message: KEY_RULE },
      { path: '/name', message: 'is required' },
      { path: '/description', message: 'must be at most 2000 characters' },
    ]),
  );
  expect(KEY_RULE).toBe(
    'Letters, digits, ".", "_" and "-", starting with a letter or digit; at most 128 characters.',
  );
  expect(JSON.stringify(res.body)).not.toMatch(/must match pattern|must NOT have/);
});

it('one wrong condition is one error at that condition, not one per alternative of every field above it', async () => {
  await server.call('POST', '/v1/projects/default/flags', { body: { key: 'words' } });
  const condition = (fields: Record<string, unknown>) =>
    server.call('PATCH', '/v1/projects/default/flags/words', {
      body: {
        rules: [
          { conditions: [{ type: 'attribute', attribute: 'country', ...fields }], serve: { variant: 'on' } },
        ],
      },
    });
  const list = await condition({ operator: 'in', value: ['BE', 'NL'] });
  expect(list.status).toBe(400);
  expect(list.body.errors).toEqual([
    { path: '/rules/0/conditions/0/value', message: 'must be string, number or boolean' },
  ]);
  const typo = await condition({ operator: 'equal', value: 'BE' });
  expect(typo.body.errors).toHaveLength(1);
  expect(typo.body.errors[0]).toMatchObject({ path: '/rules/0/conditions/0/operator' });
  // The field's own type is still named when nothing of it fits: rules are a list or null.
  const notList = await server.call('PATCH', '/v1/projects/default/flags/words', { body: { rules: 'all' } });
  expect(notList.body.errors).toEqual([{ path: '/rules', message: 'must be array or null' }]);
});

// Routes' validators and serializers are compiled on first use (decision 2080): a schema that
// cannot compile would answer 500 on its route's first request instead of stopping the start.
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
