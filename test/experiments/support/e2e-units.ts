import type { TestStatistic } from '../../../src/statistics/index.ts';
import { seededRandom } from '../../support/random.ts';

// The end-to-end experiment of issue 35, drawn the same on every run: 20,000 units, control
// converting at 10 %, the treatment at 12 %; each buyer makes 1–3 purchases of 5–100, and one unit
// in five bought in the two days before (CUPED's covariate), more often those who buy again.
// test/fixtures/gbstats/experiment-e2e.json holds gbstats's figures for exactly these units.

export const E2E_UNITS = 20_000;
export const E2E_SEED = 35_2026;
export const CONTROL = 'off';
export const TREATMENT = 'on';
const RATES: Readonly<Record<string, number>> = { [CONTROL]: 0.1, [TREATMENT]: 0.12 };

export const unitKey = (i: number) => `e2e-unit-${i}`;

/** One unit's purchases before its exposure and after, as values. */
export interface UnitPurchases {
  readonly before: readonly number[];
  readonly after: readonly number[];
}

const amount = (random: () => number) => Math.round((5 + 95 * random()) * 100) / 100;

/** What unit `i` buys, given the variant it was served: its own stream of draws, whatever the order. */
export function purchasesOf(i: number, variant: string): UnitPurchases {
  const random = seededRandom(E2E_SEED * 100_003 + i);
  const loyal = random() < 0.2;
  const before = loyal ? Array.from({ length: 1 + Math.floor(random() * 2) }, () => amount(random)) : [];
  const rate = (RATES[variant] ?? 0) * (loyal ? 1.5 : 0.875);
  const after =
    random() < rate ? Array.from({ length: 1 + Math.floor(random() * 3) }, () => amount(random)) : [];
  return { before, after };
}

export const E2E_METRICS = [
  { key: 'converted', kind: 'conversion' },
  { key: 'purchases', kind: 'count' },
  { key: 'revenue', kind: 'sum' },
] as const;
export type E2eMetric = (typeof E2E_METRICS)[number];

/** A unit's value of a metric from its purchases. */
function metricValue(kind: E2eMetric['kind'], purchases: readonly number[]): number {
  if (kind === 'conversion') return purchases.length > 0 ? 1 : 0;
  if (kind === 'count') return purchases.length;
  return purchases.reduce((a, b) => a + b, 0);
}

/** The per-variant statistic of one metric over the units given, as gbstats takes it. */
export function statisticOver(
  kind: E2eMetric['kind'],
  units: readonly UnitPurchases[],
  cuped: boolean,
): TestStatistic {
  const n = units.length;
  let sum = 0;
  let sumSquares = 0;
  let preSum = 0;
  let preSumSquares = 0;
  let products = 0;
  for (const u of units) {
    const post = metricValue(kind, u.after);
    const pre = metricValue(kind, u.before);
    sum += post;
    sumSquares += post * post;
    preSum += pre;
    preSumSquares += pre * pre;
    products += post * pre;
  }
  const base = (s: number, ss: number): TestStatistic =>
    kind === 'conversion'
      ? { kind: 'proportion', n, sum: s }
      : { kind: 'sample-mean', n, sum: s, sumSquares: ss };
  if (!cuped) return base(sum, sumSquares);
  return {
    kind: 'regression-adjusted',
    n,
    post: base(sum, sumSquares) as never,
    pre: base(preSum, preSumSquares) as never,
    postPreSumOfProducts: products,
  };
}
