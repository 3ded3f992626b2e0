import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Experiment } from '../../src/domain/experiment.ts';
import type { TestStatistic } from '../../src/statistics/index.ts';
import { describeEachDatabase } from '../support/database.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';
import {
  CONTROL,
  E2E_METRICS,
  E2E_UNITS,
  type E2eMetric,
  purchasesOf,
  statisticOver,
  TREATMENT,
  type UnitPurchases,
  unitKey,
} from './support/e2e-units.ts';
import { foldOnce, foldUntil } from './support/fold.ts';

// Issue 35's end-to-end test: 20,000 units evaluated through OFREP (single evaluations expose
// them), half converting at 10 % and half at 12 %, their purchases sent as tracking events, and
// the results API's figures equal to gbstats's on the same per-variant sums (within 1e-6
// relative) for conversion, count and sum metrics, frequentist, sequential and Bayesian, with and
// without CUPED. And the sample-ratio check: a 50/50 split that received 52/48 is warned about.
// FLAGSTAFF_RECORD_GBSTATS_INPUT=<file> writes the cases for generate.py fill (fixture README).

const FIXTURES = join(import.meta.dirname, '../fixtures/gbstats');
const ADMIN = {
  type: 'user',
  id: 'e2e',
  name: 'E2E',
  role: 'admin',
  projectId: null,
  environments: null,
} as const;
const RECORD = process.env.FLAGSTAFF_RECORD_GBSTATS_INPUT;
const DAY = 86_400_000;
const HEADERS = {
  authorization: `Bearer ${ADMIN_KEY}`,
  'x-flagstaff-project': 'default',
  'x-flagstaff-environment': 'production',
};
const ANALYSES = [
  { test: 'twoSided', analysis: { method: 'frequentist', alpha: 0.05, sequential: false } },
  { test: 'sequential', analysis: { method: 'frequentist', alpha: 0.05, sequential: true } },
  { test: 'bayesian', analysis: { method: 'bayesian', alpha: 0.05, sequential: false } },
] as const;

interface FixtureCase {
  readonly name: string;
  readonly test: string;
  readonly config: { readonly differenceType: 'relative' | 'absolute'; readonly alpha: number };
  readonly control: TestStatistic;
  readonly treatment: TestStatistic;
  readonly expected: Record<string, unknown>;
}

const caseName = (metric: string, cuped: boolean, test: string, difference: string) =>
  `e2e ${metric}${cuped ? ', CUPED' : ''}: ${test}, ${difference}`;

/** Within 1e-6 relative (values below 1e-12 in size count as 0: a risk of 1e-15 has no digits to keep). */
function differences(expected: unknown, actual: unknown, path: string): string[] {
  if (typeof expected === 'number') {
    const close =
      typeof actual === 'number' &&
      (Math.abs(expected - actual) <= 1e-6 * Math.max(Math.abs(expected), Math.abs(actual)) ||
        Math.max(Math.abs(expected), Math.abs(actual)) < 1e-12);
    return close ? [] : [`${path}: gbstats ${expected}, ours ${actual}`];
  }
  if (Array.isArray(expected)) {
    return expected.flatMap((e, i) =>
      differences(e, (actual as unknown[] | undefined)?.[i], `${path}[${i}]`),
    );
  }
  return expected === actual ? [] : [`${path}: gbstats ${String(expected)}, ours ${String(actual)}`];
}

describeEachDatabase('experiments end to end: OFREP to results, equal to gbstats', (database) => {
  let server: TestServer;
  const served = new Map<number, string>();
  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await server.app.inject({ method, url, headers: HEADERS, ...(payload ? { payload } : {}) });
    expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 500)}`).toBeLessThan(300);
    return JSON.parse(res.body);
  };
  const send = async (events: readonly object[]) => {
    for (let i = 0; i < events.length; i += 1000) {
      const answer = await call('POST', '/v1/events', { events: events.slice(i, i + 1000) });
      expect(answer.rejected).toEqual([]);
    }
  };
  const fold = () => foldOnce(server.store);
  /** Each variant's units and purchases as the aggregates hold them, against the generated units'. */
  const caughtUp = async (key: string, metric: E2eMetric) => {
    const projectId = (await call('GET', '/v1/projects/default')).id;
    const experiment = (await server.store.experiments.findByKey(projectId, key)) as Experiment;
    const stored = await server.services.comparisonStatistics.variantStatistics(
      { projectId, environment: 'production', key: experiment.id },
      await server.services.metrics.get({ principal: ADMIN, requestId: 'e2e' }, 'default', metric.key),
      { cuped: true },
    );
    return [CONTROL, TREATMENT].every((v) =>
      isDeepStrictEqual(stored.get(v), expectedStatistic(metric, v, true)),
    );
  };
  const setUp = async (flag: string, experiment: string) => {
    await call('POST', '/v1/projects/default/flags', { key: flag });
    await call('PATCH', `/v1/projects/default/flags/${flag}?environment=production`, {
      enabled: true,
      defaultRollout: {
        weights: [
          { variant: TREATMENT, weight: 50 },
          { variant: CONTROL, weight: 50 },
        ],
      },
    });
    await call('POST', '/v1/projects/default/experiments', {
      key: experiment,
      flag,
      environment: 'production',
      control: CONTROL,
      treatments: [TREATMENT],
      metrics: { primary: 'converted', secondary: ['purchases', 'revenue'] },
    });
    return call('POST', `/v1/projects/default/experiments/${experiment}/start`);
  };
  /** The experiment analysed as `settings` say: its stored row changed directly, as only a draft could be over the API. */
  const analyseAs = async (key: string, settings: Pick<Experiment, 'analysis' | 'cuped'>) => {
    const projectId = (await call('GET', '/v1/projects/default')).id;
    const stored = (await server.store.experiments.findByKey(projectId, key)) as Experiment;
    await server.store.experiments.update(
      { ...stored, ...settings, version: stored.version + 1 },
      stored.version,
    );
    return call('GET', `/v1/projects/default/experiments/${key}/results`);
  };

  beforeAll(async () => {
    server = await startTestServer(database);
    for (const { key, kind } of E2E_METRICS) {
      await call('POST', '/v1/projects/default/metrics', { key, event: 'purchase', kind });
    }
    await setUp('checkout-banner', 'e2e');
    // The purchases of the two days before: sent, and folded, before anyone is exposed.
    const before = Date.now() - 2 * DAY;
    const history = Array.from({ length: E2E_UNITS }, (_, i) =>
      purchasesOf(i, CONTROL).before.map((value, k) => ({
        name: 'purchase',
        context: { targetingKey: unitKey(i) },
        value,
        id: `pre-${i}-${k}`,
        timestamp: new Date(before + i).toISOString(),
      })),
    ).flat();
    await send(history);
    await fold();
    for (let i = 0; i < E2E_UNITS; i++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/ofrep/v1/evaluate/flags/checkout-banner',
        headers: HEADERS,
        payload: { context: { targetingKey: unitKey(i) } },
      });
      served.set(i, JSON.parse(res.body).variant);
    }
    await server.services.exposures.flush();
    const after = [...served].flatMap(([i, variant]) =>
      purchasesOf(i, variant).after.map((value, k) => ({
        name: 'purchase',
        context: { targetingKey: unitKey(i) },
        value,
        id: `post-${i}-${k}`,
      })),
    );
    await send(after);
    // Folded to the last event: each variant's units and purchases, before and after, all there.
    await foldUntil(server.store, () => caughtUp('e2e', E2E_METRICS[1]));
  }, 600_000);
  afterAll(() => server?.close());

  /** Each variant's statistic of a metric, from the generated purchases of the units it was served. */
  const expectedStatistic = (metric: E2eMetric, variant: string, cuped: boolean) => {
    const units: UnitPurchases[] = [];
    for (const [i, v] of served) if (v === variant) units.push(purchasesOf(i, v));
    return statisticOver(metric.kind, units, cuped);
  };

  it('splits the 20,000 units about half and half, all exposed once', async () => {
    const results = await call('GET', '/v1/projects/default/experiments/e2e/results');
    const counts = results.variants.map((v: { units: number }) => v.units);
    expect(counts[0] + counts[1]).toBe(E2E_UNITS);
    expect(Math.abs(counts[0] - counts[1])).toBeLessThan(600);
    expect(results.srm.warning).toBe(false);
  });

  it('answers gbstats’s figures for every metric, analysis and CUPED setting', async () => {
    const cases: Omit<FixtureCase, 'expected'>[] = [];
    const fixture = RECORD
      ? undefined
      : new Map(
          (
            JSON.parse(readFileSync(join(FIXTURES, 'experiment-e2e.json'), 'utf8')).cases as FixtureCase[]
          ).map((c) => [c.name, c]),
        );
    const problems: string[] = [];
    for (const cuped of [false, true]) {
      for (const { test, analysis } of ANALYSES) {
        const results = await analyseAs('e2e', { analysis, cuped });
        for (const metric of E2E_METRICS) {
          const shown = results.metrics.find((m: { metric: string }) => m.metric === metric.key);
          const control = expectedStatistic(metric, CONTROL, cuped);
          const treatment = expectedStatistic(metric, TREATMENT, cuped);
          expect(shown.control.units).toBe(control.n);
          for (const difference of ['relative', 'absolute'] as const) {
            const name = caseName(metric.key, cuped, test, difference);
            const config = { differenceType: difference, alpha: 0.05 };
            cases.push({ name, test, config, control, treatment });
            const known = fixture?.get(name);
            if (fixture === undefined) continue;
            if (known === undefined) throw new Error(`No fixture case "${name}"`);
            // The fixture was computed from exactly these units' sums.
            expect({ control: known.control, treatment: known.treatment }, name).toEqual({
              control,
              treatment,
            });
            const effect = shown.treatments[0][difference];
            for (const field of ['expected', 'ci', 'pValue', 'chanceToWin', 'risk', 'errorMessage']) {
              if (field in known.expected) {
                problems.push(...differences(known.expected[field], effect[field], `${name} ${field}`));
              }
            }
          }
        }
      }
    }
    if (RECORD) writeFileSync(RECORD, JSON.stringify({ cases }, null, 1));
    expect(problems).toEqual([]);
    expect(fixture === undefined || cases.length === fixture.size).toBe(true);
  });

  it('shows the conversion effect the units were drawn with: about +20 %, and significant', async () => {
    const results = await analyseAs('e2e', { analysis: ANALYSES[0].analysis, cuped: false });
    const converted = results.metrics.find((m: { metric: string }) => m.metric === 'converted');
    expect(converted.control.mean).toBeGreaterThan(0.08);
    expect(converted.control.mean).toBeLessThan(0.12);
    const { relative } = converted.treatments[0];
    expect(relative.ci[0]).toBeLessThan(0.2);
    expect(relative.ci[1]).toBeGreaterThan(0.2);
    expect(relative.pValue).toBeLessThan(0.05);
  });

  it('warns of a sample-ratio mismatch: a 50/50 split that received 52/48', async () => {
    await setUp('promo-banner', 'srm');
    // Bulk clients report what they showed: 10,400 units the treatment, 9,600 control.
    const exposures = Array.from({ length: E2E_UNITS }, (_, i) => ({
      name: '$exposure',
      context: { targetingKey: `srm-unit-${i}` },
      details: { flag: 'promo-banner', variant: i < 10_400 ? TREATMENT : CONTROL },
    }));
    await send(exposures);
    await server.services.exposures.flush();
    const units = async () =>
      (await call('GET', '/v1/projects/default/experiments/srm/results')).variants.reduce(
        (n: number, v: { units: number }) => n + v.units,
        0,
      );
    await foldUntil(server.store, async () => (await units()) === E2E_UNITS);
    const results = await call('GET', '/v1/projects/default/experiments/srm/results');
    expect(results.variants).toEqual([
      { variant: CONTROL, units: 9_600, expectedShare: 0.5 },
      { variant: TREATMENT, units: 10_400, expectedShare: 0.5 },
    ]);
    const gbstats = JSON.parse(readFileSync(join(FIXTURES, 'srm.json'), 'utf8')).cases.find(
      (c: { users: number[] }) => c.users[0] === 10_400 && c.users[1] === 9_600,
    );
    expect(differences(gbstats.pValue, results.srm.pValue, 'srm pValue')).toEqual([]);
    expect(results.srm).toMatchObject({ warning: true });
    expect(results.srm.pValue).toBeLessThan(0.001);
  }, 120_000);
});
