import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEY_RULE } from '../../src/domain/keys.ts';
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
