import type { DifferenceType, EffectProblem } from './effect-moments.ts';
import { prepareComparison } from './frequentist-result.ts';
import { normalCdf, normalPpf } from './normal-distribution.ts';
import { type TestStatistic, unadjustedMean } from './statistic.ts';
import { truncatedNormalMean } from './truncated-normal-mean.ts';

/** A normal prior on the effect. gbstats's default is improper (flat): the data alone decide. */
export interface GaussianPrior {
  readonly mean: number;
  readonly variance: number;
  readonly proper: boolean;
}

export const DEFAULT_PRIOR: GaussianPrior = { mean: 0, variance: 1, proper: false };

export interface BayesianOptions {
  /** The credible interval holds 1 − α of the posterior: 0.05. */
  readonly alpha?: number;
  readonly differenceType?: DifferenceType;
  /** True when lower is better (a metric whose goal is to decrease). */
  readonly inverse?: boolean;
  /** A prior on the relative effect (scaled by the control mean for absolute differences). */
  readonly prior?: GaussianPrior;
}

/** A Bayesian comparison of treatment with control (gbstats's BayesianTestResult). */
export interface BayesianResult {
  /** The posterior mean of the effect. */
  readonly expected: number;
  /** The central 1 − α credible interval of the effect. */
  readonly ci: readonly [number, number];
  /** The posterior probability that treatment is better than control. */
  readonly chanceToWin: number;
  /** Expected loss of choosing [control, treatment]: the effect given up if the choice is wrong. */
  readonly risk: readonly [number, number];
  readonly riskType: DifferenceType;
  readonly uplift: { readonly mean: number; readonly stddev: number };
  readonly errorMessage: EffectProblem | null;
}

/** The expected loss of choosing control and of choosing treatment under N(mu, sigma²). */
function risks(mu: number, sigma: number): [number, number] {
  // Beyond 37 standard deviations one side's probability is exactly 0 in doubles.
  if (sigma > 0 && Math.abs(mu / sigma) > 37) return [Math.max(mu, 0), Math.max(-mu, 0)];
  const controlBetter = normalCdf(-mu / sigma);
  const negative = truncatedNormalMean(mu, sigma, 'below-zero');
  const positive = truncatedNormalMean(mu, sigma, 'above-zero');
  return [(1 - controlBetter) * positive, -(controlBetter * negative)];
}

/** The prior on the scale of the difference asked for (gbstats's scaling of a relative prior). */
function scaledPrior(prior: GaussianPrior, relative: boolean, base: number): GaussianPrior {
  if (relative) return prior;
  return { mean: prior.mean * Math.abs(base), variance: prior.variance * base ** 2, proper: prior.proper };
}

/**
 * gbstats's EffectBayesianABTest: a normal posterior on the effect from the same moments as the
 * frequentist test and a normal prior (by default flat, improper).
 */
export function effectBayesianABTest(
  control: TestStatistic,
  treatment: TestStatistic,
  options: BayesianOptions = {},
): BayesianResult {
  const { control: a, moments, alpha } = prepareComparison(control, treatment, options);
  const relative = (options.differenceType ?? 'relative') === 'relative';
  const riskType: DifferenceType = relative ? 'relative' : 'absolute';
  const uninformative = (problem: EffectProblem): BayesianResult => ({
    expected: 0,
    ci: [0, 0],
    chanceToWin: 0.5,
    risk: [0, 0],
    riskType,
    uplift: { mean: 0, stddev: 0 },
    errorMessage: problem,
  });
  if (moments.problem !== undefined) return uninformative(moments.problem);
  const prior = scaledPrior(options.prior ?? DEFAULT_PRIOR, relative, unadjustedMean(a));
  if (!relative && prior.proper && unadjustedMean(a) === 0)
    return uninformative('ZERO_NEGATIVE_BASELINE_VARIATION');
  const dataVariance = moments.standardError ** 2;
  const precision = 1 / dataVariance + (prior.proper ? 1 / prior.variance : 0);
  const mean = prior.proper
    ? (moments.pointEstimate / dataVariance + prior.mean / prior.variance) / precision
    : moments.pointEstimate;
  const stddev = Math.sqrt(1 / precision);
  const better = normalCdf(mean / stddev);
  const [riskControl, riskTreatment] = risks(mean, stddev);
  return {
    expected: mean,
    ci: [mean + stddev * normalPpf(alpha / 2), mean + stddev * normalPpf(1 - alpha / 2)],
    chanceToWin: options.inverse === true ? 1 - better : better,
    risk: options.inverse === true ? [riskTreatment, riskControl] : [riskControl, riskTreatment],
    riskType,
    uplift: { mean, stddev },
    errorMessage: null,
  };
}
