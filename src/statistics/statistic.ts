// The per-variant sufficient statistics the tests take, in gbstats's shapes
// (gbstats/models/statistics.py): a use case sums its per-unit aggregates into one of these.

/** A conversion metric: `sum` of the n units converted (each unit's value is 0 or 1). */
export interface ProportionStatistic {
  readonly kind: 'proportion';
  readonly n: number;
  readonly sum: number;
}

/** A count or sum metric: n units, the sum of their values and the sum of their squares. */
export interface SampleMeanStatistic {
  readonly kind: 'sample-mean';
  readonly n: number;
  readonly sum: number;
  readonly sumSquares: number;
}

export type BaseStatistic = ProportionStatistic | SampleMeanStatistic;

/**
 * CUPED: the metric after exposure (`post`) and the same metric in the pre-exposure window
 * (`pre`, the covariate) of the same n units, of the same kind, with Σ post·pre. `theta` is left
 * out: the tests compute it from both variants, as gbstats does.
 */
export interface RegressionAdjustedStatistic {
  readonly kind: 'regression-adjusted';
  readonly n: number;
  readonly post: BaseStatistic;
  readonly pre: BaseStatistic;
  readonly postPreSumOfProducts: number;
  readonly theta?: number | undefined;
}

export type TestStatistic = BaseStatistic | RegressionAdjustedStatistic;

const sumSquaresOf = (stat: BaseStatistic): number =>
  stat.kind === 'proportion' ? stat.sum : stat.sumSquares;

function baseMean(stat: BaseStatistic): number {
  return stat.n === 0 ? 0 : stat.sum / stat.n;
}

function baseVariance(stat: BaseStatistic): number {
  if (stat.kind === 'proportion') {
    const mean = baseMean(stat);
    return mean * (1 - mean);
  }
  if (stat.n <= 1) return 0;
  return (stat.sumSquares - (stat.sum * stat.sum) / stat.n) / (stat.n - 1);
}

/** The covariance of two metrics over the same n units (gbstats's compute_covariance). */
export function covariance(n: number, a: BaseStatistic, b: BaseStatistic, sumOfProducts: number): number {
  if (n <= 1) return 0;
  // Proportions use the population form, as their variance p(1 − p) does.
  if (a.kind === 'proportion' && b.kind === 'proportion') return sumOfProducts / n - (a.sum * b.sum) / n ** 2;
  return (sumOfProducts - (a.sum * b.sum) / n) / (n - 1);
}

const thetaOf = (stat: RegressionAdjustedStatistic): number => stat.theta ?? 0;

/** The covariance of a CUPED statistic's post and pre metrics. */
export function postPreCovariance(stat: RegressionAdjustedStatistic): number {
  return covariance(stat.n, stat.post, stat.pre, stat.postPreSumOfProducts);
}

/** The mean the tests compare: for CUPED, the post mean less θ times the pre mean. */
export function statisticMean(stat: TestStatistic): number {
  if (stat.kind !== 'regression-adjusted') return baseMean(stat);
  return baseMean(stat.post) - thetaOf(stat) * baseMean(stat.pre);
}

/** The mean as observed, without any CUPED adjustment: what a results page shows per variant. */
export function unadjustedMean(stat: TestStatistic): number {
  return baseMean(stat.kind === 'regression-adjusted' ? stat.post : stat);
}

/** The per-unit variance (for CUPED, of the adjusted metric post − θ·pre). */
export function statisticVariance(stat: TestStatistic): number {
  if (stat.kind !== 'regression-adjusted') return baseVariance(stat);
  if (stat.n <= 1) return 0;
  const theta = thetaOf(stat);
  return baseVariance(stat.post) + theta ** 2 * baseVariance(stat.pre) - 2 * theta * postPreCovariance(stat);
}

/** The per-unit standard deviation, 0 when there is no variance. */
export function statisticStddev(stat: TestStatistic): number {
  const variance = statisticVariance(stat);
  return variance <= 0 ? 0 : Math.sqrt(variance);
}

/** The pooled statistic of two variants' units (gbstats's create_joint_statistic). */
function joint(a: BaseStatistic, b: BaseStatistic, n: number): BaseStatistic {
  if (a.kind === 'proportion' && b.kind === 'proportion')
    return { kind: 'proportion', n, sum: a.sum + b.sum };
  return { kind: 'sample-mean', n, sum: a.sum + b.sum, sumSquares: sumSquaresOf(a) + sumSquaresOf(b) };
}

/** CUPED's θ: the pooled covariance of post and pre over the pooled variance of pre; 0 without variance. */
export function cupedTheta(a: RegressionAdjustedStatistic, b: RegressionAdjustedStatistic): number {
  const n = a.n + b.n;
  const post = joint(a.post, b.post, n);
  const pre = joint(a.pre, b.pre, n);
  if (baseVariance(pre) === 0 || baseVariance(post) === 0) return 0;
  return covariance(n, post, pre, a.postPreSumOfProducts + b.postPreSumOfProducts) / baseVariance(pre);
}

/**
 * Both variants with θ set when both are CUPED statistics without one (gbstats's
 * create_theta_adjusted_statistics); a θ of 0 (no variance to learn from) falls back to the post
 * metrics, unadjusted.
 */
export function thetaAdjusted(a: TestStatistic, b: TestStatistic): readonly [TestStatistic, TestStatistic] {
  if (a.kind !== 'regression-adjusted' || b.kind !== 'regression-adjusted') return [a, b];
  if (a.theta !== undefined && b.theta !== undefined) return [a, b];
  const theta = cupedTheta(a, b);
  if (theta === 0) return [a.post, b.post];
  return [
    { ...a, theta },
    { ...b, theta },
  ];
}
