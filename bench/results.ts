import { composeNode } from '../src/main.ts';
import type { Actor } from '../src/services/core/actor.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import type { ComparisonUnit, MetricUnitIncrement } from '../src/storage/comparison-aggregate-store.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import type { Store } from '../src/storage/store.ts';
import { seededRandom } from '../test/support/random.ts';
import { isMain, report } from './child.ts';
import { type BenchDatabase, rowOnEach } from './databases.ts';
import type { Row } from './stats.ts';

// An experiment's results at scale (SPEC §13: 1,000,000 units in under 2 s): the per-unit
// aggregates of a running experiment with a conversion and a sum metric, CUPED on, written
// straight into the aggregate tables as the fold would (12 % of units bought, 20 % bought
// before), then GET …/results through the use case. The baseline is the same request for an
// experiment of 10,000 units in the same database: the ratio is what the units cost.

const UNITS = 1_000_000;
const BASELINE_UNITS = 10_000;
const STEP = 20_000;
const TIMES = 3;
const KEY = 'fsk_bench-results-admin-key-0123456789abcdef';
const actor: Actor = {
  principal: { type: 'user', id: 'bench', name: 'Bench', role: 'admin', projectId: null, environments: null },
  requestId: 'bench',
};

/** A running experiment on a flag of its own, and its per-unit aggregates for `units` units. */
async function experimentOf(store: Store, flag: string, units: number): Promise<void> {
  const { services } = composeNode(store);
  await services.flags.create(actor, 'default', { key: flag });
  await services.experiments.create(actor, 'default', {
    key: flag,
    flag,
    environment: 'production',
    control: 'off',
    treatments: ['on'],
    metrics: { primary: 'buys', secondary: ['revenue'] },
    cuped: true,
  });
  const started = await services.experiments.start(actor, 'default', flag);
  if (!('applied' in started)) throw new Error('an admin’s start is applied');
  const { id: comparison, projectId } = started.applied;
  const metrics = await Promise.all(
    ['buys', 'revenue'].map((k) => services.metrics.get(actor, 'default', k)),
  );
  const random = seededRandom(units);
  for (let from = 0; from < units; from += STEP) {
    const step: ComparisonUnit[] = [];
    const metricUnits: MetricUnitIncrement[] = [];
    for (let i = from; i < Math.min(units, from + STEP); i++) {
      const unit = {
        projectId,
        comparison,
        unit: `unit-${i}`,
        variant: i % 2 === 0 ? 'on' : 'off',
        firstAt: 0,
      };
      step.push(unit);
      const bought = random() < 0.12;
      const before = random() < 0.2;
      if (!bought && !before) continue;
      const value = Math.round(random() * 10_000) / 100;
      for (const metric of metrics) {
        metricUnits.push({
          ...unit,
          metricId: metric.id,
          count: bought ? 1 : 0,
          sum: bought ? value : 0,
          preCount: before ? 1 : 0,
          preSum: before ? value / 2 : 0,
        });
      }
    }
    const { position, version } = await store.aggregates.foldCursor();
    await store.aggregates.applyFold({ to: position, units: step, metricUnits, unitDays: [] }, version);
  }
}

/** The fastest of TIMES results requests, in ms. */
async function resultsMs(store: Store, key: string): Promise<number> {
  const { services } = composeNode(store);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < TIMES; i++) {
    const began = performance.now();
    const results = await services.experimentResults.results(actor, 'default', key);
    best = Math.min(best, performance.now() - began);
    if (results.variants.reduce((n, v) => n + v.units, 0) === 0) throw new Error('no units read');
  }
  return best;
}

async function measure(name: string, open: () => Promise<BenchDatabase>): Promise<Row> {
  const opened = await open();
  try {
    const store = createSqlStore(opened.db);
    await bootstrap(store, KEY);
    const { services } = composeNode(store);
    await services.metrics.create(actor, 'default', { key: 'buys', event: 'purchase', kind: 'conversion' });
    await services.metrics.create(actor, 'default', { key: 'revenue', event: 'purchase', kind: 'sum' });
    await experimentOf(store, 'small', BASELINE_UNITS);
    await experimentOf(store, 'large', UNITS);
    const baseline = await resultsMs(store, 'small');
    const large = await resultsMs(store, 'large');
    return {
      section: 'results',
      figure: `${name}: GET …/experiments/{key}/results at 1,000,000 units, 2 metrics, CUPED (baseline: 10,000 units)`,
      value: `${large.toFixed(0)} ms`,
      baseline: `${baseline.toFixed(1)} ms`,
      ratio: large / baseline,
      target: '< 2 s',
      met: large < 2000,
    };
  } finally {
    await opened.close();
  }
}

if (isMain(import.meta.url)) report(await rowOnEach('results', measure));
