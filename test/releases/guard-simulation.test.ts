import { describe, expect, it } from 'vitest';
import type { MetricGuard } from '../../src/domain/release-plan.ts';
import type {
  ComparisonRef,
  ComparisonStatistics,
} from '../../src/services/measurement/comparison-statistics.ts';
import { readMetricGuard } from '../../src/services/releases/guard-readings.ts';
import type { ProportionStatistic, TestStatistic } from '../../src/statistics/index.ts';
import { buildMetric } from '../support/builders.ts';
import { type Random, seededRandom } from '../support/random.ts';

// Simulated release plans: each looks at its metric guard ten times, 500 more units per variant
// between looks, through the guard's own reading (readMetricGuard → sequentialGuard, decision
// 1910). The per-variant statistics come from a ComparisonStatistics that holds simulated
// sufficient statistics in memory: a simulation of the aggregates, not of a database.

const PLANS = 1000;
const LOOKS = 10;
const UNITS_PER_LOOK = 500;
const RATE = 0.1;
const ALPHA = 0.05;

const METRIC = buildMetric('checkout', { projectId: 'prj_sim' });
const GUARD: MetricGuard = {
  kind: 'metric',
  name: 'checkout',
  metric: 'checkout',
  alpha: ALPHA,
  minUnits: 100,
};
const PLAN = {
  id: 'rpl_sim',
  projectId: 'prj_sim',
  environment: 'production',
  control: 'old',
  treatment: 'new',
};

/** Per-variant statistics that grow as simulated units arrive. */
class SimulatedStatistics implements ComparisonStatistics {
  readonly #byVariant = new Map<string, ProportionStatistic>();
  add(variant: string, units: number, conversions: number): void {
    const was = this.#byVariant.get(variant) ?? { kind: 'proportion', n: 0, sum: 0 };
    this.#byVariant.set(variant, { kind: 'proportion', n: was.n + units, sum: was.sum + conversions });
  }
  async variantStatistics(comparison: ComparisonRef): Promise<ReadonlyMap<string, TestStatistic>> {
    expect(comparison.key).toBe('release:rpl_sim');
    return this.#byVariant;
  }
}

const conversions = (random: Random, units: number, rate: number) => {
  let sum = 0;
  for (let i = 0; i < units; i++) if (random() < rate) sum += 1;
  return sum;
};

/** One plan: true when any of its ten looks reads the guard as breached (the plan would roll back). */
async function rollsBack(random: Random, change: number): Promise<boolean> {
  const statistics = new SimulatedStatistics();
  for (let look = 0; look < LOOKS; look++) {
    statistics.add('old', UNITS_PER_LOOK, conversions(random, UNITS_PER_LOOK, RATE));
    statistics.add('new', UNITS_PER_LOOK, conversions(random, UNITS_PER_LOOK, RATE * (1 + change)));
    const reading = await readMetricGuard(GUARD, METRIC, PLAN, statistics, new Date(look).toISOString());
    if (reading.status === 'breached') return true;
  }
  return false;
}

async function rate(seed: number, change: number): Promise<number> {
  const random = seededRandom(seed);
  let count = 0;
  for (let plan = 0; plan < PLANS; plan++) if (await rollsBack(random, change)) count += 1;
  return count / PLANS;
}

describe('metric guards over 1,000 simulated plans of ten looks each (α 0.05)', () => {
  it('roll back at most α of A/A plans, however often they look', async () => {
    const falseRollbacks = await rate(36, 0);
    expect(falseRollbacks).toBeLessThanOrEqual(ALPHA);
  });

  it('catch a true 20 % regression in at least 80 % of plans', async () => {
    expect(await rate(37, -0.2)).toBeGreaterThanOrEqual(0.8);
  });

  it('never roll back a 20 % improvement', async () => {
    expect(await rate(38, 0.2)).toBe(0);
  });

  it('cannot be read, and say so, below the units they need or without statistics', async () => {
    const few = new SimulatedStatistics();
    few.add('old', 50, 5);
    few.add('new', 50, 1);
    const reading = await readMetricGuard(GUARD, METRIC, PLAN, few, '2026-01-01T00:00:00Z');
    expect(reading).toMatchObject({
      status: 'unreadable',
      figures: { controlUnits: 50, treatmentUnits: 50 },
    });
    expect(reading.message).toContain('the guard reads from 100 each');
    const none = await readMetricGuard(GUARD, METRIC, PLAN, undefined, '2026-01-01T00:00:00Z');
    expect(none).toMatchObject({
      status: 'unreadable',
      message: expect.stringContaining('no per-variant statistics'),
    });
  });
});
