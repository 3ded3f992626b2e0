import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSchema } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { proxyInFrontOf, throughProxy } from '../support/tcp-proxy.ts';
import { type NodeProcess, runCliProcess, startNodeProcess } from './node-process.ts';

const ADMIN_KEY = 'fsk_process-admin-key-0123456789abcdefghijkl';
const postgresUrl = process.env.FLAGSTAFF_TEST_DATABASE_URL;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function started(env: Record<string, string>): NodeProcess {
  const node = startNodeProcess({ FLAGSTAFF_ADMIN_KEY: ADMIN_KEY, ...env });
  cleanups.push(() => node.stop());
  return node;
}

const get = (url: string, path: string, key?: string) =>
  fetch(`${url}${path}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });

describe('the CLI and a running node on one SQLite file', () => {
  it('refuses a key within 1 s of the CLI revoking it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagstaff-plane-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = { FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'flagstaff.db')}` };
    const node = started(env);
    const url = await node.listening;
    const created = await runCliProcess(['keys', 'create', '--role', 'viewer', '--name', 'doomed'], env);
    const secret = /fsk_\S+/.exec(created.stdout)?.[0] as string;
    const id = /key_\w+/.exec(created.stdout)?.[0] as string;
    expect(await eventually(async () => (await get(url, '/v1/projects', secret)).status === 200, 1000)).toBe(
      true,
    );
    expect((await runCliProcess(['keys', 'revoke', id], env)).code).toBe(0);
    expect(await eventually(async () => (await get(url, '/v1/projects', secret)).status === 401, 1000)).toBe(
      true,
    );
  }, 30_000);
});

describe.skipIf(postgresUrl === undefined)('a node started while PostgreSQL is unreachable', () => {
  it('retries with backoff, logging each attempt, and becomes ready once the database returns', async () => {
    const url = postgresUrl as string;
    const proxy = await proxyInFrontOf(url, 5432);
    cleanups.push(() => proxy.close());
    const schema = await createTestSchema(url);
    const proxied = new URL(throughProxy(url, proxy));
    proxied.searchParams.set('options', `-c search_path=${schema}`);
    proxy.cut();
    const node = started({ FLAGSTAFF_DATABASE_URL: proxied.toString() });
    const attempts = () => node.output().match(/database unreachable at start; retrying/g)?.length ?? 0;
    expect(await eventually(async () => attempts() >= 3, 10_000)).toBe(true);
    expect(node.child.exitCode).toBeNull();
    proxy.restore();
    const address = await node.listening;
    const ready = await get(address, '/readyz');
    expect([ready.status, (await ready.json()).database]).toEqual([200, 'up']);
    expect((await get(address, '/v1/projects/default/flags', ADMIN_KEY)).status).toBe(200);
  }, 40_000);
});
