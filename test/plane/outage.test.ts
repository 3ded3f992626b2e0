import { expect, it } from 'vitest';
import { createKey, type Node } from '../access/support.ts';
import { eventually } from '../support/eventually.ts';
import { describeOutage } from '../support/postgres-behind-proxy.ts';

const OUTAGE_MS = 5000;

/**
 * Two nodes on one PostgreSQL database, each through a TCP proxy the test cuts and restores:
 * a database restart or failover as the nodes see it (docs/product.md §8). One process: a node that
 * exited, or an unhandled 'error' event, fails the run.
 */
describeOutage('two nodes on PostgreSQL through an outage', { a: 'proxied', b: 'proxied' }, (nodes) => {
  const evaluate = (node: Node, key: string) =>
    node.call('GET', '/v1/flags/outage?environment=production', { key });

  it('propagates changes and revocations to the other node, serves evaluation through a 5 s outage, refuses writes with 503, and recovers', async () => {
    const { proxy, a, b } = nodes();
    const created = await a.call('POST', '/v1/projects/default/flags', {
      body: { key: 'outage', type: 'boolean' },
    });
    expect(created.status).toBe(201);
    const evaluator = await createKey(a.services, created.body.projectId ?? null, 'evaluator');
    const revoked = await createKey(a.services, created.body.projectId ?? null, 'evaluator');

    // A change made on A is served by B.
    const patched = await a.call('PATCH', `/v1/flags/${created.body.id}?environment=production`, {
      body: { enabled: true },
    });
    expect(patched.status).toBe(200);
    const servedOnB = async () => {
      const reply = await evaluate(b, evaluator.secret);
      return reply.status === 200 && reply.body.value === true;
    };
    expect(await eventually(servedOnB, 1000)).toBe(true);

    // A revocation made on A: at once on A, within 1 s on B.
    expect(await eventually(async () => (await evaluate(b, revoked.secret)).status === 200, 1000)).toBe(true);
    expect((await a.call('DELETE', `/v1/api-keys/${revoked.id}`)).status).toBe(204);
    expect((await evaluate(a, revoked.secret)).status).toBe(401);
    expect(await eventually(async () => (await evaluate(b, revoked.secret)).status === 401, 1000)).toBe(true);

    proxy.cut();
    const outageEnds = Date.now() + OUTAGE_MS;
    const statuses = new Map<string, number>();
    const count = (route: string, status: number) => {
      const key = `${route} ${status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    };
    let write: Awaited<ReturnType<Node['call']>> | undefined;
    while (Date.now() < outageEnds) {
      for (const node of [a, b]) {
        count('rest', (await evaluate(node, evaluator.secret)).status);
        // Naming the project by key, as an organisation-wide key must: resolved from memory too.
        count(
          'rest',
          (await node.call('GET', '/v1/flags/outage?project=default', { key: evaluator.secret })).status,
        );
        count(
          'bulk',
          (
            await node.call('POST', '/v1/evaluate', {
              key: evaluator.secret,
              body: { environment: 'production' },
            })
          ).status,
        );
        count(
          'ofrep',
          (
            await node.call('POST', '/ofrep/v1/evaluate/flags/outage', {
              key: evaluator.secret,
              body: { context: { targetingKey: 'u' } },
            })
          ).status,
        );
      }
      write = await a.call('PATCH', `/v1/flags/${created.body.id}?environment=production`, {
        body: { enabled: false },
      });
      count('write', write.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Every evaluation answered from memory; every write was refused as such.
    expect([...statuses.keys()].sort()).toEqual(['bulk 200', 'ofrep 200', 'rest 200', 'write 503']);
    expect(write?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect([write?.body.code, write?.headers['retry-after']]).toEqual(['database_unavailable', '5']);
    for (const node of [a, b]) {
      const ready = await node.call('GET', '/readyz', { key: null });
      expect([ready.status, ready.body.database]).toEqual([200, 'down']);
    }

    proxy.restore();
    // Within 5 s of the database returning, writes work again and reach the other node.
    const writable = async () =>
      (
        await a.call('PATCH', `/v1/flags/${created.body.id}?environment=production`, {
          body: { enabled: false },
        })
      ).status === 200;
    expect(await eventually(writable, 5000)).toBe(true);
    const offOnB = async () => (await evaluate(b, evaluator.secret)).body.value === false;
    expect(await eventually(offOnB, 1000)).toBe(true);
    for (const node of [a, b]) {
      const up = async () => (await node.call('GET', '/readyz', { key: null })).body.database === 'up';
      expect(await eventually(up, 5000)).toBe(true);
    }
  }, 30_000);
});
