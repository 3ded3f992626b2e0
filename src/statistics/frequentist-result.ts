import type { DifferenceType, EffectMoments, EffectProblem } from './effect-moments.ts';
import { effectMoments } from './effect-moments.ts';
import type { TestStatistic } from './statistic.ts';
import { thetaAdjusted } from './statistic.ts';
import { assertComparable } from './statistic-problem.ts';

/** The options every frequentist test takes; gbstats's defaults. */
export interface FrequentistOptions {
  /** The false-positive rate the interval and the p-value are held to: 0.05. */
  readonly alpha?: number;
  readonly differenceType?: DifferenceType;
}

/** A frequentist comparison of treatment with control (gbstats's FrequentistTestResult). */
export interface FrequentistResult {
  /** The estimated effect: relative ((b − a) / |a|) or absolute (b − a). */
  readonly expected: number;
  /** The confidence interval of the effect; a one-sided interval has null on its open side. */
  readonly ci: readonly [number | null, number | null];
  /** Two-sided tests only. */
  readonly pValue?: number;
  /** The effect's sampling distribution: normal, with this mean and standard deviation. */
  readonly uplift: { readonly mean: number; readonly stddev: number };
  /** Why the test could not run (then every figure is gbstats's uninformative default). */
  readonly errorMessage: EffectProblem | null;
}

/** The two variants as a test sees them: checked, θ-adjusted for CUPED, with their effect. */
export interface PreparedComparison {
  readonly control: TestStatistic;
  readonly treatment: TestStatistic;
  readonly moments: EffectMoments;
  readonly alpha: number;
}

export function prepareComparison(
  control: TestStatistic,
  treatment: TestStatistic,
  options: FrequentistOptions,
): PreparedComparison {
  assertComparable(control, treatment);
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be between 0 and 1, not ${alpha}`);
  const [a, b] = thetaAdjusted(control, treatment);
  return {
    control: a,
    treatment: b,
    moments: effectMoments(a, b, options.differenceType ?? 'relative'),
    alpha,
  };
}

/** gbstats's answer when no effect can be estimated. */
export function uninformative(problem: EffectProblem): FrequentistResult {
  return { expected: 0, ci: [0, 0], pValue: 1, uplift: { mean: 0, stddev: 0 }, errorMessage: problem };
}
