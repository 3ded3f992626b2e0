import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type NodeProcess, startNodeProcess } from '../plane/node-process.ts';
import { createTestSchema } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { RELEASED_FLAG, releasePlanBody } from '../support/release-plans.ts';

// Two `flagstaff serve` processes over one PostgreSQL run one release plan. The node that is in the
// middle of a step is killed (kill -9); the other takes the step over, and it happens once.

const postgresUrl = process.env.FLAGSTAFF_TEST_DATABASE_URL;
const ADMIN_KEY = 'fsk_release-takeover-admin-key-0123456789abcdef';
const PLAN = '/v1/projects/default/flags/checkout/environments/production/release-plan';

describe.skipIf(postgresUrl === undefined)('a release plan when the node making its step is killed', () => {
  const nodes: NodeProcess[] = [];
  const clients: pg.Client[] = [];
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await Promise.all(clients.map((c) => c.end()));
  });

  it('is taken over by the other node: the step is made once', async () => {
    const url = postgresUrl as string;
    const schema = await createTestSchema(url);
    const database = new URL(url);
    database.searchParams.set('options', `-c search_path=${schema}`);
    const env = { FLAGSTAFF_DATABASE_URL: database.toString(), FLAGSTAFF_ADMIN_KEY: ADMIN_KEY };
    const first = startNodeProcess(env);
    nodes.push(first);
    const firstUrl = await first.listening;
    const second = startNodeProcess(env);
    nodes.push(second);
    const secondUrl = await second.listening;
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${ADMIN_KEY}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
    };

    const flag = await call(firstUrl, 'POST', '/v1/projects/default/flags', RELEASED_FLAG);
    expect(flag.status).toBe(201);
    await call(firstUrl, 'PATCH', '/v1/projects/default/flags/checkout?environment=production', {
      enabled: true,
      defaultVariant: 'old',
    });
    const made = await call(
      firstUrl,
      'POST',
      PLAN,
      releasePlanBody([
        ['tenth', 10, '2s'],
        ['half', 50, '1h'],
        ['all', 100, 'until-proceeded'],
      ]),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    // Hold the flag's row: when the step falls due, both nodes are inside its transaction, waiting.
    const holder = new pg.Client({ connectionString: database.toString() });
    clients.push(holder);
    await holder.connect();
    expect((await call(firstUrl, 'POST', `${PLAN}/start`)).status).toBe(200);
    await holder.query('begin');
    await holder.query('select id from flags where id = $1 for update', [flag.body.id]);
    // Both nodes' step transactions queue behind the held row (their lock requests not granted).
    const waiting = async () => {
      const rows = await holder.query('select count(distinct pid)::int as n from pg_locks where not granted');
      return rows.rows[0].n as number;
    };
    expect(
      await eventually(async () => (await waiting()) >= 2, 20_000),
      'both nodes waiting in the step',
    ).toBe(true);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await holder.query('commit');

    expect(
      await eventually(async () => (await call(secondUrl, 'GET', PLAN)).body.current === 1, 20_000),
      'the second node made the step',
    ).toBe(true);
    const progressed = await call(
      secondUrl,
      'GET',
      '/v1/projects/default/audit-log?action=release.progressed',
    );
    expect(progressed.body).toHaveLength(1);
    const plan = (await call(secondUrl, 'GET', PLAN)).body;
    const writes = await call(
      secondUrl,
      'GET',
      `/v1/projects/default/audit-log?action=flag.updated&actorId=${plan.id}`,
    );
    expect(writes.body).toHaveLength(1);
    const served = (await call(secondUrl, 'GET', '/v1/projects/default/flags/checkout')).body;
    expect(served.environments.production.defaultRollout.weights).toEqual(plan.milestones[1].weights);
  }, 90_000);
});
