import { afterEach, expect, it } from 'vitest';
import { ApiClient, nextPageOf } from '../../src/cli/flags-as-code/api-client.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { cli, tempFolder } from './support.ts';

let server: TestServer | undefined;
afterEach(() => server?.close());

it('follows the Link header to the next page, resolved against the server', () => {
  expect(nextPageOf('</v1/projects/p/flags?limit=2&cursor=abc>; rel="next"', 'http://127.0.0.1:9')).toBe(
    'http://127.0.0.1:9/v1/projects/p/flags?limit=2&cursor=abc',
  );
  expect(nextPageOf(null, 'http://127.0.0.1:9')).toBeUndefined();
});

it('reads every page of a list longer than one page', async () => {
  server = await startTestServer();
  await server.call('POST', '/v1/projects', { body: { key: 'shop' } });
  for (let i = 0; i < 5; i++)
    await server.call('POST', '/v1/projects/shop/flags', { body: { key: `f${i}` } });
  const client = new ApiClient({ server: server.url, key: ADMIN_KEY });
  const keys = (await client.list<{ key: string }>('/v1/projects/shop/flags?limit=2')).map((f) => f.key);
  expect(keys).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
});

it('waits out a 429 as Retry-After says, so a pull under a tight rate limit still completes', async () => {
  server = await startTestServer(undefined, {
    accessControl: { rateLimits: { evaluation: 0, management: 4 } },
  });
  const client = new ApiClient({ server: server.url, key: ADMIN_KEY });
  await client.request('POST', '/v1/projects', { body: { key: 'shop' } });
  for (let i = 0; i < 8; i++)
    await client.request('POST', '/v1/projects/shop/flags', { body: { key: `f${i}` } });
  const { dir, remove } = await tempFolder();
  try {
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.err).toBe('');
    expect(pulled.out).toMatch(/8 flags/);
  } finally {
    await remove();
  }
}, 60_000);
