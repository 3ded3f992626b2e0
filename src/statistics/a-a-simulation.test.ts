import { describe, expect, it } from 'vitest';
import { type Random, seededRandom } from '../../test/support/random.ts';
import {
  type FrequentistResult,
  type ProportionStatistic,
  type RegressionAdjustedStatistic,
  sampleRatioMismatch,
  sequentialGuard,
  sequentialTwoSidedTTest,
  twoSidedTTest,
} from './index.ts';

// Simulated experiments with a seeded PRNG, so every run draws the same units. Both arms convert
// at the same rate (A/A) unless a lift is given: any "significant" result is a false positive.

const RUNS = 2000;
const LOOKS = 20;
const UNITS_PER_LOOK = 100; // per arm: 2,000 units per arm at the end of a run
const RATE = 0.1;

function conversions(random: Random, units: number, rate: number): number {
  let sum = 0;
  for (let i = 0; i < units; i++) if (random() < rate) sum += 1;
  return sum;
}

/** The cumulative statistics of both arms after each look of one simulated experiment. */
function looks(
  random: Random,
  count: number,
  unitsPerLook: number,
  lift = 0,
): [ProportionStatistic, ProportionStatistic][] {
  const out: [ProportionStatistic, ProportionStatistic][] = [];
  let a = 0;
  let b = 0;
  for (let look = 1; look <= count; look++) {
    a += conversions(random, unitsPerLook, RATE);
    b += conversions(random, unitsPerLook, RATE * (1 + lift));
    const n = look * unitsPerLook;
    out.push([
      { kind: 'proportion', n, sum: a },
      { kind: 'proportion', n, sum: b },
    ]);
  }
  return out;
}

const excludesZero = (ci: readonly [number | null, number | null]) => (ci[0] ?? 0) > 0 || (ci[1] ?? 0) < 0;

describe('an A/A simulation: 2,000 runs at α 0.05', () => {
  const random = seededRandom(35);
  const runs = Array.from({ length: RUNS }, () => looks(random, LOOKS, UNITS_PER_LOOK));
  const rate = (flags: boolean[]) => flags.filter(Boolean).length / flags.length;

  it('the fixed-horizon test, read once at the end, has a false-positive rate of 5 % ± 1.5 %', () => {
    const positives = runs.map((run) => {
      const [control, treatment] = run[LOOKS - 1] as [ProportionStatistic, ProportionStatistic];
      const result = twoSidedTTest(control, treatment);
      // The p-value and the interval say the same thing.
      expect(result.pValue !== undefined && result.pValue < 0.05).toBe(excludesZero(result.ci));
      return excludesZero(result.ci);
    });
    expect(rate(positives)).toBeGreaterThanOrEqual(0.035);
    expect(rate(positives)).toBeLessThanOrEqual(0.065);
  });

  it('the sequential test, looked at 20 times per run, stays at or under 5 %', () => {
    const positives = runs.map((run) =>
      run.some(([control, treatment]) => excludesZero(sequentialTwoSidedTTest(control, treatment).ci)),
    );
    expect(rate(positives)).toBeLessThanOrEqual(0.05);
  });

  it('while the fixed-horizon test looked at 20 times per run would raise false alarms well past 5 %', () => {
    const positives = runs.map((run) =>
      run.some(([control, treatment]) => excludesZero(twoSidedTTest(control, treatment).ci)),
    );
    expect(rate(positives)).toBeGreaterThan(0.1);
  });
});

/** One arm with CUPED: a unit that converted before exposure converts more often after it. */
function cupedArm(random: Random, n: number): RegressionAdjustedStatistic {
  let pre = 0;
  let post = 0;
  let both = 0;
  for (let i = 0; i < n; i++) {
    const before = random() < RATE ? 1 : 0;
    const after = random() < (before === 1 ? 0.3 : 0.08) ? 1 : 0;
    pre += before;
    post += after;
    both += before * after;
  }
  return {
    kind: 'regression-adjusted',
    n,
    post: { kind: 'proportion', n, sum: post },
    pre: { kind: 'proportion', n, sum: pre },
    postPreSumOfProducts: both,
  };
}

describe('an A/A simulation with CUPED: 2,000 runs at α 0.05', () => {
  const random = seededRandom(3535);
  const results = Array.from({ length: RUNS }, () => {
    const [control, treatment] = [cupedArm(random, 2000), cupedArm(random, 2000)];
    return { cuped: twoSidedTTest(control, treatment), plain: twoSidedTTest(control.post, treatment.post) };
  });
  const width = ({ ci }: FrequentistResult) => (ci[1] ?? 0) - (ci[0] ?? 0);

  it('keeps the fixed-horizon false-positive rate at 5 % ± 1.5 %', () => {
    const rate = results.filter(({ cuped }) => excludesZero(cuped.ci)).length / RUNS;
    expect(rate).toBeGreaterThanOrEqual(0.035);
    expect(rate).toBeLessThanOrEqual(0.065);
  });

  it('narrows the interval of the same units, as the pre-exposure metric explains part of the variance', () => {
    const narrower = results.filter(({ cuped, plain }) => width(cuped) < width(plain)).length;
    expect(narrower).toBe(RUNS);
  });
});

describe('the sequential guard (release plans): 1,000 plans, ten looks each, α 0.05', () => {
  const PLANS = 1000;
  const regressed = (lift: number, seed: number) => {
    const random = seededRandom(seed);
    const plans = Array.from({ length: PLANS }, () => looks(random, 10, 500, lift));
    return (
      plans.filter((plan) =>
        plan.some(
          ([control, treatment]) =>
            sequentialGuard(control, treatment, { goal: 'increase' }).status === 'regressed',
        ),
      ).length / PLANS
    );
  };

  it('calls an A/A plan a regression in at most α of plans', () => {
    expect(regressed(0, 36)).toBeLessThanOrEqual(0.05);
  });

  it('catches a true 20 % drop in conversion in at least 80 % of plans', () => {
    expect(regressed(-0.2, 37)).toBeGreaterThanOrEqual(0.8);
  });

  it('does not call an improvement a regression', () => {
    expect(regressed(0.2, 38)).toBe(0);
  });

  it('watches a metric whose goal is to decrease from the other side', () => {
    const control: ProportionStatistic = { kind: 'proportion', n: 5000, sum: 250 };
    const worse: ProportionStatistic = { kind: 'proportion', n: 5000, sum: 400 };
    expect(sequentialGuard(control, worse, { goal: 'decrease' })).toMatchObject({ status: 'regressed' });
    expect(sequentialGuard(control, worse, { goal: 'increase' })).toMatchObject({ status: 'clear' });
  });

  it('cannot read a metric without variance, and says why instead of passing it', () => {
    const none: ProportionStatistic = { kind: 'proportion', n: 400, sum: 0 };
    expect(sequentialGuard(none, none, { goal: 'increase' })).toEqual({
      status: 'unreadable',
      reason: 'ZERO_NEGATIVE_VARIANCE',
    });
  });
});

describe('sample-ratio mismatch', () => {
  it('warns when a 50/50 experiment receives 52/48 over 20,000 units', () => {
    const srm = sampleRatioMismatch([10_400, 9_600], [0.5, 0.5]);
    expect(srm.warning).toBe(true);
    expect(srm.pValue).toBeLessThan(0.001);
  });

  it('does not warn on the ordinary noise of a 50/50 split', () => {
    expect(sampleRatioMismatch([10_060, 9_940], [0.5, 0.5]).warning).toBe(false);
  });
});
