import {
  postPreCovariance,
  type RegressionAdjustedStatistic,
  statisticMean,
  statisticVariance,
  type TestStatistic,
  unadjustedMean,
} from './statistic.ts';

/** How treatment is compared with control: (b − a) / |a| or b − a. gbstats's default is relative. */
export type DifferenceType = 'relative' | 'absolute';

/** Why no effect could be estimated: gbstats's messages, word for word. */
export type EffectProblem = 'ZERO_NEGATIVE_VARIANCE' | 'ZERO_NEGATIVE_BASELINE_VARIATION';

/** The estimated effect of treatment over control and its standard error (gbstats's EffectMoments). */
export type EffectMoments =
  | { readonly pointEstimate: number; readonly standardError: number; readonly problem?: undefined }
  | { readonly pointEstimate: 0; readonly standardError: 0; readonly problem: EffectProblem };

// Var(M / D) by the delta method, for M and D with the given means, variances and covariance.
function varianceOfRatios(meanM: number, varM: number, meanD: number, varD: number, covMD: number): number {
  if (meanD === 0) return 0;
  return varM / meanD ** 2 + (varD * meanM ** 2) / meanD ** 4 - (2 * covMD * meanM) / meanD ** 3;
}

/** The relative effect's variance with CUPED: the delta method over both adjusted means. */
function relativeCupedVariance(a: RegressionAdjustedStatistic, b: RegressionAdjustedStatistic): number {
  const base = unadjustedMean(a);
  const denominatorTreatment = b.n * base ** 2;
  const denominatorControl = a.n * base ** 2;
  if (denominatorTreatment === 0 || denominatorControl === 0) return 0;
  const theta = a.theta ?? 0;
  const treatment = statisticVariance({ ...b, theta }) / denominatorTreatment;
  const postMeanB = -statisticMean(b.post);
  const postMeanA = statisticMean(a.post);
  const control =
    (statisticVariance(a.post) * postMeanB ** 2) / postMeanA ** 2 +
    (2 * theta * postPreCovariance(a) * postMeanB) / postMeanA +
    theta ** 2 * statisticVariance(a.pre);
  return treatment + control / denominatorControl;
}

/** The variance of the effect estimate, relative or absolute. */
export function effectVariance(a: TestStatistic, b: TestStatistic, relative: boolean): number {
  if (a.kind === 'regression-adjusted' && b.kind === 'regression-adjusted' && relative) {
    return relativeCupedVariance(a, b);
  }
  const varA = statisticVariance(a) / a.n;
  const varB = statisticVariance(b) / b.n;
  if (!relative) return varB + varA;
  return varianceOfRatios(unadjustedMean(b), varB, unadjustedMean(a), varA, 0);
}

/**
 * The effect of `b` over `a` (both already θ-adjusted for CUPED), or the problem that prevents it:
 * no variance in either variant or in the estimate, or a control mean of zero.
 */
export function effectMoments(a: TestStatistic, b: TestStatistic, difference: DifferenceType): EffectMoments {
  const relative = difference === 'relative';
  const variance = effectVariance(a, b, relative);
  if (statisticVariance(a) <= 0 || statisticVariance(b) <= 0 || !(variance > 0)) {
    return { pointEstimate: 0, standardError: 0, problem: 'ZERO_NEGATIVE_VARIANCE' };
  }
  const meanA = statisticMean(a);
  const base = unadjustedMean(a);
  if (meanA === 0 || base === 0)
    return { pointEstimate: 0, standardError: 0, problem: 'ZERO_NEGATIVE_BASELINE_VARIATION' };
  const change = statisticMean(b) - meanA;
  return { pointEstimate: relative ? change / Math.abs(base) : change, standardError: Math.sqrt(variance) };
}
