import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import {
  ADMIN_KEY,
  FakeClock,
  type Node,
  openSharedDatabase,
  startHarness,
  startNode,
} from '../access/support.ts';
import { createTestSchema, describeEachDatabase } from '../support/database.ts';

const DAY = 24 * 60 * 60 * 1000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A boolean flag, enabled in production, serving "on" to alice and "off" to everyone else. */
async function createFlag(node: Node, key: string): Promise<string> {
  const created = await node.call('POST', '/v1/projects/default/flags', { body: { key } });
  expect(created.status).toBe(201);
  const patched = await node.call('PATCH', `/v1/flags/${created.body.id}?environment=production`, {
    body: { enabled: true, defaultVariant: 'off', targets: [{ variant: 'on', values: ['alice'] }] },
  });
  expect(patched.status).toBe(200);
  return created.body.id;
}

const evaluate = (node: Node, key: string, user: string) =>
  node.call(
    'GET',
    `/v1/flags/${key}?project=default&attributes=${encodeURIComponent(JSON.stringify({ targetingKey: user }))}`,
  );

describeEachDatabase('evaluation counts for insights', (database) => {
  it('counts every evaluation exactly once across two nodes, through REST, bulk and OFREP', async () => {
    const shared = await openSharedDatabase(database.name);
    cleanups.push(() => shared.close());
    const a = await startHarnessOn(shared.stores[0]);
    const b = await startHarnessOn(shared.stores[1]);
    const flagId = await createFlag(a, 'checkout');
    await b.snapshots.syncAll();

    for (let i = 0; i < 7; i++)
      expect((await evaluate(a, 'checkout', 'alice')).body).toMatchObject({ variant: 'on' });
    await a.services.insights.flush();
    for (let i = 0; i < 4; i++) {
      const bulk = await b.call('POST', '/v1/evaluate?project=default', {
        body: { environment: 'production', attributes: { targetingKey: 'bob' }, flags: ['checkout'] },
      });
      expect(bulk.status).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      const ofrep = await b.call('POST', '/ofrep/v1/evaluate/flags/checkout', {
        body: { context: { targetingKey: 'carol' } },
        headers: { 'x-flagstaff-project': 'default' },
      });
      expect(ofrep.status).toBe(200);
    }
    for (let i = 0; i < 2; i++) expect((await evaluate(a, 'checkout', 'dave')).status).toBe(200);
    // The playground's explain is a person trying the flag, not an application served: not counted.
    const explained = await a.call('POST', '/v1/projects/default/flags/checkout/explain', {
      body: { environment: 'production', attributes: { targetingKey: 'erin' } },
    });
    expect(explained.body).toMatchObject({ variant: 'off' });
    await a.services.insights.flush();
    await b.services.insights.flush();
    await a.services.insights.flush(); // nothing left: adds nothing

    const insights = await b.call('GET', `/v1/flags/${flagId}/insights?environment=production`);
    expect(insights.status).toBe(200);
    expect(insights.body.total).toBe(16);
    const totals = Object.fromEntries(
      insights.body.series.map((s: { variant: string; reason: string; total: number }) => [
        `${s.variant}/${s.reason}`,
        s.total,
      ]),
    );
    expect(totals).toEqual({ 'on/targeting': 7, 'off/default': 9 });
    expect(insights.body.lastEvaluatedAt).not.toBeNull();

    const flag = await a.call('GET', '/v1/projects/default/flags/checkout');
    expect(flag.body.lastEvaluatedAt.production).toBe(insights.body.lastEvaluatedAt);
    expect(flag.body.lastEvaluatedAt.staging ?? null).toBeNull();
    const list = await a.call('GET', '/v1/projects/default/flags?environment=production');
    expect(list.body[0].lastEvaluatedAt).toBe(insights.body.lastEvaluatedAt);
    const environments = await a.call('GET', '/v1/projects/default/environments');
    expect(
      Object.fromEntries(
        environments.body.map((e: { key: string; lastEvaluatedAt: string | null }) => [
          e.key,
          e.lastEvaluatedAt,
        ]),
      ),
    ).toEqual({ development: null, production: insights.body.lastEvaluatedAt });
  });

  it('keeps the counts of a node that shuts down gracefully', async () => {
    const { url, cleanup } = await databaseUrl(database.name);
    cleanups.push(cleanup);
    const config = loadConfig({
      FLAGSTAFF_DATABASE_URL: url,
      FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
      FLAGSTAFF_PORT: '0',
      FLAGSTAFF_LOG_LEVEL: 'silent',
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
    });
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    };
    const first = await serve(config);
    const base = `http://127.0.0.1:${(first.server.address() as { port: number }).port}`;
    const created = await call(base, 'POST', '/v1/projects/default/flags', { key: 'banner' });
    for (let i = 0; i < 25; i++)
      expect((await call(base, 'GET', '/v1/flags/banner?project=default')).status).toBe(200);
    await first.close(); // what SIGTERM does: the last counts are flushed on the way out

    const second = await serve(config);
    cleanups.push(() => second.close());
    const again = `http://127.0.0.1:${(second.server.address() as { port: number }).port}`;
    const insights = await call(again, 'GET', `/v1/flags/${created.body.id}/insights`);
    expect(insights.body.total).toBe(25);
    expect(insights.body.series).toEqual([
      expect.objectContaining({ variant: 'off', reason: 'disabled', total: 25 }),
    ]);
  }, 60_000); // two full starts (migrations included) of a real server

  it('finds flags not evaluated, or serving one variant to everyone, for 30 days', async () => {
    const clock = new FakeClock();
    const node = await startHarness(database, { clock });
    cleanups.push(() => node.close());
    const staging = await node.call('POST', '/v1/projects/default/environments', {
      body: { key: 'staging' },
    });
    expect(staging.status).toBe(201);
    await createFlag(node, 'mixed');
    await createFlag(node, 'steady');
    await node.call('POST', '/v1/projects/default/flags', { body: { key: 'unused' } });
    const staleKeys = async (query = '') => {
      const list = await node.call('GET', `/v1/projects/default/flags?stale=true${query}`);
      expect(list.status).toBe(200);
      return Object.fromEntries(
        list.body.map((f: { key: string; stale: { reason: string } }) => [f.key, f.stale.reason]),
      );
    };
    const serveBoth = async () => {
      await evaluate(node, 'mixed', 'alice');
      await evaluate(node, 'mixed', 'bob');
      await evaluate(node, 'steady', 'bob');
      await node.services.insights.flush();
    };

    await serveBoth();
    expect(await staleKeys()).toEqual({}); // younger than 30 days: nothing is stale yet

    clock.advance(20 * DAY);
    await serveBoth();
    clock.advance(11 * DAY);
    await serveBoth();
    expect(await staleKeys()).toEqual({ steady: 'single_variant', unused: 'not_evaluated' });
    const notStale = await node.call('GET', '/v1/projects/default/flags?stale=false');
    expect(notStale.body.map((f: { key: string }) => f.key)).toEqual(['mixed']);
    const listed = await node.call('GET', '/v1/projects/default/flags');
    const steady = listed.body.find((f: { key: string }) => f.key === 'steady');
    expect(steady.stale).toEqual({
      reason: 'single_variant',
      variant: 'off',
      detail: 'Served only "off" to everyone in production for 30 days.',
    });
    // In staging nothing was ever evaluated.
    expect(await staleKeys('&environment=staging')).toEqual({
      mixed: 'not_evaluated',
      steady: 'not_evaluated',
      unused: 'not_evaluated',
    });

    await evaluate(node, 'unused', 'bob');
    await evaluate(node, 'steady', 'alice'); // a second variant: no longer one for everyone
    await node.services.insights.flush();
    expect(await staleKeys()).toEqual({});
  });

  it('answers a series in aligned buckets and refuses bad parameters with a problem', async () => {
    const clock = new FakeClock();
    // Tomorrow 10:20:30 UTC: after the flag's creation (minutes before it are not the flag's).
    const day0 = Math.ceil(Date.now() / DAY) * DAY;
    const at = (ms: number) => new Date(day0 + ms).toISOString();
    clock.now = day0 + Date.parse('1970-01-01T10:20:30Z');
    const node = await startHarness(database, { clock });
    cleanups.push(() => node.close());
    const flagId = await createFlag(node, 'paged');
    await evaluate(node, 'paged', 'alice');
    clock.advance(60 * 60 * 1000);
    await evaluate(node, 'paged', 'alice');
    await evaluate(node, 'paged', 'bob');
    await node.services.insights.flush();

    const url = `/v1/flags/${flagId}/insights`;
    const day = await node.call('GET', `${url}?from=${at(0)}&to=${at(DAY)}&step=1h`);
    expect(day.status).toBe(200);
    expect(day.body.buckets).toHaveLength(24);
    expect(day.body.buckets[10]).toBe(at(10 * 60 * 60 * 1000));
    const on = day.body.series.find((s: { variant: string }) => s.variant === 'on');
    expect(on.counts[10]).toBe(1);
    expect(on.counts[11]).toBe(1);
    expect(on.total).toBe(2);
    const auto = await node.call('GET', url);
    expect(auto.body.step).toBe('15m');
    expect(auto.body.total).toBe(3);

    for (const [query, status] of [
      ['from=yesterday', 400],
      [`from=${at(DAY)}&to=${at(0)}`, 400],
      [`from=${at(-40 * DAY)}&to=${at(0)}`, 400],
      [`from=${at(-30 * DAY)}&to=${at(0)}&step=1m`, 400],
      ['step=2m', 400],
      ['colour=blue', 400],
      ['environment=nowhere', 404],
    ] as const) {
      const response = await node.call('GET', `${url}?${query}`);
      expect([query, response.status]).toEqual([query, status]);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await node.call('GET', '/v1/flags/flg_missing/insights')).status).toBe(404);
    expect((await node.call('GET', url, { key: null })).status).toBe(401);
  });
});

/** One more node over a store another node already bootstrapped. */
async function startHarnessOn(store: import('../../src/storage/store.ts').Store): Promise<Node> {
  const { bootstrap } = await import('../../src/services/projects/bootstrap.ts');
  await bootstrap(store, ADMIN_KEY);
  const node = await startNode(store);
  cleanups.push(() => node.app.close());
  return node;
}

/** A database URL `serve` can open twice: a SQLite file, or PostgreSQL with a schema of its own. */
async function databaseUrl(
  name: 'sqlite' | 'postgres',
): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'flagstaff-insights-'));
    return {
      url: `sqlite:${join(dir, 'flagstaff.db')}`,
      cleanup: async () => rmSync(dir, { recursive: true }),
    };
  }
  const base = process.env.FLAGSTAFF_TEST_DATABASE_URL as string;
  const schema = await createTestSchema(base);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.href, cleanup: async () => {} };
}
