import { Agent, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { runKeysCommand } from '../../src/cli/keys.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { Store } from '../../src/storage/store.ts';
import { describeEachDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import {
  ADMIN_KEY,
  createKey,
  FakeClock,
  type Harness,
  type Node,
  openSharedDatabase,
  setupActor,
  startHarness,
  startNode,
} from './support.ts';

const quiet = { out: () => {}, err: () => {} };

/** Counts the calls of every store method, so a test can tell what touched the database. */
function counting(store: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

const WRITES = /^(insert|update|delete|touch|revoke|bump|accept)/;
const writes = (calls: Map<string, number>) =>
  [...calls].filter(([name]) => WRITES.test(name)).reduce((sum, [, n]) => sum + n, 0);

describeEachDatabase('revocation, expiry and last use of API keys', (database) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function single(clock?: FakeClock): Promise<Harness> {
    const node = await startHarness(database, clock ? { clock } : {});
    cleanups.push(() => node.close());
    return node;
  }

  /** Two nodes over one database, each following the change feed, as a deployment behind a load balancer. */
  async function twoNodes(clock?: FakeClock): Promise<{ a: Node; b: Node; stores: readonly [Store, Store] }> {
    const shared = await openSharedDatabase(database.name);
    cleanups.push(() => shared.close());
    await bootstrap(shared.stores[0], ADMIN_KEY);
    const a = await startNode(shared.stores[0], { ...(clock ? { clock } : {}), feedFrom: shared.dbs[0] });
    const b = await startNode(shared.stores[1], { ...(clock ? { clock } : {}), feedFrom: shared.dbs[1] });
    cleanups.push(async () => {
      await a.app.close();
      await b.app.close();
    });
    return { a, b, stores: shared.stores };
  }

  it('refuses a revoked key on the very next request, with 401 and WWW-Authenticate', async () => {
    const node = await single();
    const key = await createKey(node.services, null, 'viewer');
    expect((await node.call('GET', '/v1/projects', { key: key.secret })).status).toBe(200);
    expect((await node.call('DELETE', `/v1/api-keys/${key.id}`)).status).toBe(204);
    const refused = await node.call('GET', '/v1/projects', { key: key.secret });
    expect([refused.status, refused.body.code, refused.headers['www-authenticate']]).toEqual([
      401,
      'unauthorized',
      'Bearer',
    ]);
    const listed = await node.call('GET', '/v1/api-keys');
    expect(listed.body.find((k: { id: string }) => k.id === key.id).revokedAt).toEqual(expect.any(String));
  });

  it('checks the key on every request of a kept-alive connection, whichever key it sends', async () => {
    // The connection remembers the hash of the header it sent last (decision 0207): never a verdict.
    const node = await single();
    const viewer = await createKey(node.services, null, 'viewer');
    const evaluator = await createKey(node.services, null, 'evaluator');
    await node.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = node.app.server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => agent.destroy());
    const get = (secret: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const request = httpGet(
          {
            port,
            host: '127.0.0.1',
            path: '/v1/projects',
            agent,
            headers: { authorization: `Bearer ${secret}` },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket }),
            );
          },
        );
        request.on('error', reject);
      });

    expect(await get(viewer.secret)).toEqual({ status: 200, reused: false });
    expect(await get(evaluator.secret)).toEqual({ status: 403, reused: true });
    expect(await get(viewer.secret)).toEqual({ status: 200, reused: true });
    expect((await node.call('DELETE', `/v1/api-keys/${viewer.id}`)).status).toBe(204);
    expect(await get(viewer.secret)).toEqual({ status: 401, reused: true });
    expect(await get(evaluator.secret)).toEqual({ status: 403, reused: true });
  });

  it('honours a revocation made on node A at once on A and within 1 s on node B', async () => {
    const { a, b } = await twoNodes();
    const key = await createKey(a.services, null, 'evaluator');
    const evaluate = (node: Node) => node.call('GET', '/v1/flags/none?project=default', { key: key.secret });
    expect(await eventually(async () => (await evaluate(b)).status === 404, 1000)).toBe(true);
    expect((await a.call('DELETE', `/v1/api-keys/${key.id}`)).status).toBe(204);
    expect((await evaluate(a)).status).toBe(401);
    expect(await eventually(async () => (await evaluate(b)).status === 401, 1000)).toBe(true);
  });

  it('honours a revocation made with the CLI within 1 s on a running node', async () => {
    const { a, b, stores } = await twoNodes();
    const key = await createKey(a.services, null, 'viewer');
    expect(
      await eventually(
        async () => (await b.call('GET', '/v1/projects', { key: key.secret })).status === 200,
        1000,
      ),
    ).toBe(true);
    expect(await runKeysCommand(['revoke', key.id], stores[0], quiet)).toBe(0);
    expect(
      await eventually(
        async () => (await b.call('GET', '/v1/projects', { key: key.secret })).status === 401,
        1000,
      ),
    ).toBe(true);
  });

  it('refuses a key from the first request after it expires, on every node', async () => {
    const clock = new FakeClock();
    const { a, b } = await twoNodes(clock);
    const expiresAt = new Date(clock.now + 60_000).toISOString();
    const created = await a.call('POST', '/v1/api-keys', {
      body: { name: 'short-lived', role: 'viewer', expiresAt },
    });
    expect([created.status, created.body.expiresAt]).toEqual([201, expiresAt]);
    const secret = created.body.secret as string;
    expect(
      await eventually(
        async () => (await b.call('GET', '/v1/projects', { key: secret })).status === 200,
        1000,
      ),
    ).toBe(true);
    clock.advance(59_999);
    expect((await a.call('GET', '/v1/projects', { key: secret })).status).toBe(200);
    clock.advance(1);
    expect((await a.call('GET', '/v1/projects', { key: secret })).status).toBe(401);
    expect((await b.call('GET', '/v1/projects', { key: secret })).status).toBe(401);
  });

  it('refuses a key whose project was deleted', async () => {
    const node = await single();
    const project = await node.services.projects.create(setupActor, { key: 'short' });
    const key = await createKey(node.services, project.id, 'admin');
    expect((await node.call('GET', '/v1/projects/short', { key: key.secret })).status).toBe(200);
    expect((await node.call('DELETE', '/v1/projects/short')).status).toBe(204);
    expect((await node.call('GET', '/v1/projects/short', { key: key.secret })).status).toBe(401);
  });

  it('keeps lastUsedAt without a database write per request, and writes it in one batch', async () => {
    const shared = await openSharedDatabase(database.name);
    cleanups.push(() => shared.close());
    await bootstrap(shared.stores[0], ADMIN_KEY);
    const counted = counting(shared.stores[0]);
    const a = await startNode(counted.store);
    const b = await startNode(shared.stores[1]);
    cleanups.push(async () => {
      await a.app.close();
      await b.app.close();
    });
    const key = await createKey(a.services, null, 'evaluator');
    counted.calls.clear();

    for (let i = 0; i < 25; i++) {
      expect((await a.call('GET', '/v1/flags/none?project=default', { key: key.secret })).status).toBe(404);
    }
    expect(writes(counted.calls)).toBe(0);

    const lastUsed = async (node: Node) =>
      (await node.call('GET', '/v1/api-keys')).body.find((k: { id: string }) => k.id === key.id).lastUsedAt;
    // The node that saw the use shows it at once; another node once it is written.
    expect(await lastUsed(a)).toEqual(expect.any(String));
    expect(await lastUsed(b)).toBeNull();
    await a.services.apiKeys.flushUsage();
    expect(counted.calls.get('touchApiKeys')).toBe(1);
    expect(await lastUsed(b)).toEqual(await lastUsed(a));
    // Nothing used since the last flush: nothing written.
    await a.services.apiKeys.flushUsage();
    const touched = counted.calls.get('touchApiKeys');
    await a.services.apiKeys.flushUsage();
    expect(counted.calls.get('touchApiKeys')).toBe(touched);
  });

  it('authenticates evaluation requests from memory, without reading the database', async () => {
    const node = await single();
    const counted = counting(node.store);
    const other = await startNode(counted.store);
    cleanups.push(() => other.app.close());
    const keys = await Promise.all([1, 2, 3].map(() => createKey(node.services, null, 'evaluator')));
    // The first request of a node loads its keys (and the project); after that, nothing.
    expect((await other.call('GET', '/v1/flags/none?project=default', { key: keys[0]?.secret })).status).toBe(
      404,
    );
    counted.calls.clear();
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        other.call('GET', '/v1/flags/none?project=default', { key: keys[i % 3]?.secret }),
      ),
    );
    expect(replies.every((r) => r.status === 404)).toBe(true);
    expect([...counted.calls.keys()]).toEqual([]);
  });

  it('stores only a hash of the secret, and never lists it', async () => {
    const node = await single();
    const created = await node.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'ci', role: 'evaluator', environments: ['production'] },
    });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.headers.location).toBe(`/v1/api-keys/${created.body.id}`);
    const secret = created.body.secret as string;
    // fsk_ and 43 base64url characters: 256 random bits.
    expect(secret).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
    expect(created.body.prefix).toBe(secret.slice(0, 12));
    expect(Object.keys(created.body).sort()).toEqual(
      [
        'createdAt',
        'environments',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
        'projectId',
        'revokedAt',
        'role',
        'secret',
      ].sort(),
    );
    const stored = await node.store.findApiKeyById(created.body.id);
    expect(JSON.stringify(stored)).not.toContain(secret);
    const listed = await node.call('GET', '/v1/projects/default/api-keys');
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain('secret');
    expect(listed.body).toEqual([
      expect.objectContaining({ id: created.body.id, prefix: created.body.prefix }),
    ]);
  });
});
