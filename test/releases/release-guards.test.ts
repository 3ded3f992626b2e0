import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeNode } from '../../src/main.ts';
import { ChangeScheduler } from '../../src/services/governance/change-scheduler.ts';
import type { ComparisonStatistics } from '../../src/services/measurement/comparison-statistics.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { ReleaseGuards } from '../../src/services/releases/release-guards.ts';
import type { Services } from '../../src/services/services.ts';
import type { TestStatistic } from '../../src/statistics/index.ts';
import type { Store } from '../../src/storage/store.ts';
import { FakeClock, type Harness, openSharedDatabase, setupActor, startHarness } from '../access/support.ts';
import { buildUnreachableWebhook } from '../support/builders.ts';
import { describeEachDatabase } from '../support/database.ts';
import { milestones, PURCHASES_GUARD, RELEASED_FLAG, releasePlanBody } from '../support/release-plans.ts';

const MINUTE = 60_000;
const PLAN = '/v1/projects/default/flags/checkout/environments/production/release-plan';

/** Per-variant statistics a test sets: what the experiments' aggregates would answer. */
class SetStatistics implements ComparisonStatistics {
  byVariant = new Map<string, TestStatistic>();
  keys: string[] = [];
  async variantStatistics(ref: { key: string }) {
    this.keys.push(ref.key);
    return this.byVariant;
  }
  set(control: number, treatment: number, n = 4000): void {
    this.byVariant = new Map([
      ['old', { kind: 'proportion', n, sum: Math.round(n * control) }],
      ['new', { kind: 'proportion', n, sum: Math.round(n * treatment) }],
    ]);
  }
}

async function flagWithMetric(services: Services): Promise<void> {
  await services.flags.create(setupActor, 'default', RELEASED_FLAG);
  const flag = await services.flags.get(setupActor, 'default', 'checkout');
  await services.flags.patch(
    setupActor,
    flag.id,
    { enabled: true, defaultVariant: 'old' },
    { environment: 'production' },
  );
  await services.metrics.create(setupActor, 'default', {
    key: 'purchase',
    event: 'purchase',
    kind: 'conversion',
  });
}

const PLAN_BODY = releasePlanBody(
  [
    ['canary', 10, '10m'],
    ['half', 50, '10m'],
    ['all', 100, 'until-proceeded'],
  ],
  { guards: [PURCHASES_GUARD], guardInterval: '1m' },
);

describeEachDatabase('release guards (SPEC §13 "Guards")', (database) => {
  let node: Harness;
  const clock = new FakeClock();
  const statistics = new SetStatistics();
  let scheduler: ChangeScheduler;
  let guards: ReleaseGuards;
  let blind: ReleaseGuards;

  beforeAll(async () => {
    node = await startHarness(database, { clock });
    await flagWithMetric(node.services);
    scheduler = new ChangeScheduler(node.store, node.services.scheduledChanges, { clock: clock.read });
    const running = node.node.runningReleases;
    guards = new ReleaseGuards(node.store, node.services.releases, {
      clock: clock.read,
      statistics,
      running,
    });
    blind = new ReleaseGuards(node.store, node.services.releases, { clock: clock.read, running });
  });
  afterAll(() => node.close());

  it('exposes the units of a running plan with a metric guard under release:<plan id>', async () => {
    expect((await node.call('POST', PLAN, { body: PLAN_BODY })).status).toBe(201);
    const started = await node.call('POST', `${PLAN}/start`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    await guards.runOnce();
    const project = (await node.call('GET', '/v1/projects/default')).body;
    expect(node.node.runningReleases.covering(project.id, 'production', 'checkout')).toEqual({
      key: `release:${started.body.id}`,
      variants: ['old', 'new'],
    });
    expect(statistics.keys).toContain(`release:${started.body.id}`);
  });

  it('holds a plan whose guard cannot be read, and says why in its GET', async () => {
    clock.advance(MINUTE);
    await blind.runOnce();
    const plan = (await node.call('GET', PLAN)).body;
    expect(plan.holding).toContain('guard "purchases" cannot be read');
    expect(plan.holding).toContain('no per-variant statistics');
    expect(plan.readings[0]).toMatchObject({ guard: 'purchases', status: 'unreadable' });
    clock.advance(9 * MINUTE);
    expect((await scheduler.runDue()).applied).toEqual([]);
    const held = (await node.call('GET', PLAN)).body;
    expect(held).toMatchObject({ current: 0, status: 'running' });
    expect(Date.parse(held.nextStep.at)).toBeGreaterThan(clock.now);
  });

  it('moves on once the guard reads clear again', async () => {
    statistics.set(0.1, 0.1);
    await guards.runOnce();
    expect((await node.call('GET', PLAN)).body.holding).toBeNull();
    clock.advance(MINUTE);
    expect((await scheduler.runDue()).applied).toHaveLength(1);
    expect((await node.call('GET', PLAN)).body.current).toBe(1);
  });

  it('rolls back on a regression as one audited write naming the guard and its figures, then the webhook', async () => {
    const project = (await node.call('GET', '/v1/projects/default')).body;
    await node.store.webhooks.insertWebhook(
      buildUnreachableWebhook('whk_releases', project.id, ['release.*'], new Date(clock.now).toISOString()),
    );
    statistics.set(0.1, 0.07);
    await guards.runOnce();
    const plan = (await node.call('GET', PLAN)).body;
    expect(plan).toMatchObject({ status: 'rolled_back', nextStep: null });
    expect(plan.stopReason).toContain('Guard "purchases" breached');
    expect(plan.readings[0]).toMatchObject({ status: 'breached', figures: { effect: expect.any(Number) } });
    const flag = (await node.call('GET', '/v1/projects/default/flags/checkout')).body;
    expect(flag.environments.production.defaultVariant).toBe('old');
    expect(flag.environments.production.defaultRollout).toBeUndefined();
    const events = await node.call('GET', '/v1/projects/default/audit-log?action=release.rolled_back');
    expect(events.body).toHaveLength(1);
    expect(events.body[0]).toMatchObject({
      actor: { type: 'release_plan', id: plan.id },
      details: { guard: 'purchases', figures: { effect: expect.any(Number), bound: expect.any(Number) } },
    });
    const write = await node.call(
      'GET',
      `/v1/projects/default/audit-log?action=flag.updated&actorId=${plan.id}`,
    );
    expect(write.body[0]).toMatchObject({ details: { rolledBack: true, guard: 'purchases' } });
    const deliveries = await node.services.webhooks.deliveries(setupActor, 'default', 'whk_releases', {
      limit: 10,
    });
    const rolled = deliveries.items.find((d) => d.event === 'release.rolled_back');
    expect(JSON.stringify(rolled?.payload)).toContain('"guard":"purchases"');
    await guards.runOnce();
    expect(
      (await node.call('GET', '/v1/projects/default/audit-log?action=release.rolled_back')).body,
    ).toHaveLength(1);
  });

  it('pauses instead when the plan says so', async () => {
    await node.call('DELETE', PLAN);
    await node.call('POST', PLAN, { body: { ...PLAN_BODY, onBreach: 'pause' } });
    await node.call('POST', `${PLAN}/start`);
    await guards.runOnce();
    const plan = (await node.call('GET', PLAN)).body;
    expect(plan).toMatchObject({ status: 'paused', current: 0 });
    expect(plan.stopReason).toContain('Guard "purchases" breached');
    const flag = (await node.call('GET', '/v1/projects/default/flags/checkout')).body;
    expect(flag.environments.production.defaultRollout.weights).toEqual(plan.milestones[0].weights);
  });
});

describe.skipIf(!process.env.FLAGSTAFF_TEST_DATABASE_URL)('a release plan on two PostgreSQL nodes', () => {
  it('makes every step and the rollback exactly once, whichever node gets there', async () => {
    const shared = await openSharedDatabase('postgres');
    try {
      const stores: readonly Store[] = shared.stores;
      await bootstrap(stores[0] as Store, 'fsk_two-nodes-admin-key-0123456789abcdefghij');
      const clock = new FakeClock();
      const statistics = new SetStatistics();
      statistics.set(0.1, 0.1);
      const nodes = stores.map((store) => ({ store, node: composeNode(store, { clock: clock.read }) }));
      const first = nodes[0]?.node.services as Services;
      await flagWithMetric(first);
      await first.releases.create(setupActor, 'default', 'checkout', 'production', {
        ...PLAN_BODY,
        milestones: milestones(
          ['a', 10, '1m'],
          ['b', 30, '1m'],
          ['c', 60, '1m'],
          ['d', 90, '1h'],
          ['e', 100, 'until-proceeded'],
        ),
      } as never);
      await first.releases.start(setupActor, 'default', 'checkout', 'production');
      const workers = nodes.map(({ store, node }) => ({
        scheduler: new ChangeScheduler(store, node.services.scheduledChanges, { clock: clock.read }),
        guards: new ReleaseGuards(store, node.services.releases, { clock: clock.read, statistics }),
      }));
      const bothAtOnce = () =>
        Promise.all(workers.flatMap((w) => [w.guards.runOnce(), w.scheduler.runDue()]));
      // Three steps, each looked at and run by both nodes at once, then a regression.
      for (let minute = 0; minute < 4; minute++) {
        await bothAtOnce();
        clock.advance(30_000);
        await bothAtOnce();
        clock.advance(30_000);
      }
      await bothAtOnce();
      statistics.set(0.1, 0.06);
      clock.advance(60_000);
      await bothAtOnce();
      await bothAtOnce();
      const plan = await first.releases.get(setupActor, 'default', 'checkout', 'production');
      expect(plan.status).toBe('rolled_back');
      const audit = await (stores[0] as Store).listAuditEvents(null, {}, { limit: 1000 });
      const actions = audit.items.map((e) => e.action);
      expect(actions.filter((a) => a === 'release.progressed')).toHaveLength(3);
      expect(actions.filter((a) => a === 'release.rolled_back')).toHaveLength(1);
      const progressedTo = audit.items
        .filter((e) => e.action === 'release.progressed')
        .map((e) => (e.details as { milestone: number }).milestone)
        .sort();
      expect(progressedTo).toEqual([1, 2, 3]);
      // Every step a flag write of its own: start, three steps, the rollback.
      expect(actions.filter((a) => a === 'flag.updated')).toHaveLength(1 + 1 + 3 + 1);
    } finally {
      await shared.close();
    }
  });
});
