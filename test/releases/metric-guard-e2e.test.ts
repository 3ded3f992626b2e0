import { type Client, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FlagstaffServerProvider } from '../../clients/openfeature/src/server.ts';
import { AggregateFold } from '../../src/services/measurement/aggregate-fold.ts';
import { combineMeasuredComparisons } from '../../src/services/measurement/comparison-statistics.ts';
import { ReleaseComparisons } from '../../src/services/releases/release-comparisons.ts';
import { ReleaseGuards } from '../../src/services/releases/release-guards.ts';
import { setupActor } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { seededRandom } from '../support/random.ts';
import { PURCHASES_GUARD, RELEASED_FLAG, releasePlanBody } from '../support/release-plans.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// A metric guard end to end: an application evaluates the flag through the OpenFeature client
// package (single OFREP evaluations expose each unit under the plan) and reports purchases with
// client.track(); the new variant halves them. The guard reads the per-unit aggregates folded
// from those events and rolls the plan back.

const PLAN = '/v1/projects/default/flags/checkout/environments/production/release-plan';
const UNITS = 1500;

describeEachDatabase('a metric guard from events sent through the OpenFeature client', (database) => {
  let server: TestServer;
  let client: Client;
  let provider: FlagstaffServerProvider;
  let guards: ReleaseGuards;

  const fold = () =>
    new AggregateFold(server.store, combineMeasuredComparisons(new ReleaseComparisons(server.store)), {
      settleMs: 0,
    }).pass();

  beforeAll(async () => {
    server = await startTestServer(database);
    await server.call('POST', '/v1/projects/default/flags', { body: RELEASED_FLAG });
    await server.call('PATCH', '/v1/projects/default/flags/checkout?environment=production', {
      body: { enabled: true, defaultVariant: 'old' },
    });
    await server.call('POST', '/v1/projects/default/metrics', {
      body: { key: 'purchase', event: 'purchase', kind: 'conversion' },
    });
    const project = (await server.call('GET', '/v1/projects/default')).body;
    const key = await server.services.apiKeys.create(setupActor, project.id, {
      name: 'shop',
      role: 'evaluator',
      environments: ['production'],
    });
    provider = new FlagstaffServerProvider({
      baseUrl: server.url,
      headers: { Authorization: `Bearer ${key.secret}` },
    });
    await OpenFeature.setProviderAndWait(`metric-guard-${database.name}`, provider);
    client = OpenFeature.getClient(`metric-guard-${database.name}`);
    const services = server.services;
    guards = new ReleaseGuards(server.store, services.releases, {
      statistics: services.comparisonStatistics,
      running: server.node.runningReleases,
    });
  });
  afterAll(async () => {
    await OpenFeature.close();
    await server.close();
  });

  it('rolls the plan back when the new variant converts worse', async () => {
    const made = await server.call('POST', PLAN, {
      body: releasePlanBody(
        [
          ['half', 50, '1h'],
          ['all', 100, 'until-proceeded'],
        ],
        {
          guards: [{ ...PURCHASES_GUARD, minUnits: 200 }],
          guardInterval: '1s',
        },
      ),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await server.call('POST', `${PLAN}/start`)).status).toBe(200);
    // The guard's first look: nobody exposed yet, so it cannot be read (and the plan is now watched).
    await guards.runOnce();
    expect((await server.call('GET', PLAN)).body.holding).toContain('cannot be read');

    const random = seededRandom(36);
    for (let unit = 0; unit < UNITS; unit++) {
      const context = { targetingKey: `unit-${unit}` };
      const { variant } = await client.getBooleanDetails('checkout', false, context);
      if (random() < (variant === 'new' ? 0.1 : 0.2)) client.track('purchase', context);
    }
    await provider.tracking.flush();
    await server.services.exposures.flush();
    await fold();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await guards.runOnce();

    const plan = (await server.call('GET', PLAN)).body;
    expect(plan.status, JSON.stringify(plan.readings)).toBe('rolled_back');
    expect(plan.readings[0]).toMatchObject({
      guard: 'purchases',
      status: 'breached',
      figures: { effect: expect.any(Number), bound: expect.any(Number) },
    });
    expect(plan.readings[0].figures.controlUnits + plan.readings[0].figures.treatmentUnits).toBe(UNITS);
    expect(plan.readings[0].figures.bound).toBeLessThan(0);
    for (let unit = 0; unit < 20; unit++) {
      expect(
        (await client.getBooleanDetails('checkout', false, { targetingKey: `unit-${unit}` })).variant,
      ).toBe('old');
    }
  }, 120_000);
});
