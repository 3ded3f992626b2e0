import {
  type FrequentistOptions,
  type FrequentistResult,
  prepareComparison,
  uninformative,
} from './frequentist-result.ts';
import { statisticVariance, type TestStatistic } from './statistic.ts';
import { studentTCdf, studentTPpf } from './student-t.ts';

/** Welch–Satterthwaite degrees of freedom of the two variants' (adjusted) variances. */
export function welchDegreesOfFreedom(a: TestStatistic, b: TestStatistic): number {
  const varA = statisticVariance(a);
  const varB = statisticVariance(b);
  return (
    (varB / b.n + varA / a.n) ** 2 / (varB ** 2 / (b.n ** 2 * (b.n - 1)) + varA ** 2 / (a.n ** 2 * (a.n - 1)))
  );
}

/**
 * A fixed-horizon two-sided Welch t-test of treatment against control (gbstats's TwoSidedTTest):
 * the relative effect's standard error comes from the delta method. Valid when looked at once,
 * at a sample size fixed in advance.
 */
export function twoSidedTTest(
  control: TestStatistic,
  treatment: TestStatistic,
  options: FrequentistOptions = {},
): FrequentistResult {
  const { control: a, treatment: b, moments, alpha } = prepareComparison(control, treatment, options);
  if (moments.problem !== undefined) return uninformative(moments.problem);
  const dof = welchDegreesOfFreedom(a, b);
  const { pointEstimate, standardError } = moments;
  // 2 (1 − F(|t|)) as gbstats computes it, so tiny p-values round as gbstats's do.
  const pValue = 2 * (1 - studentTCdf(Math.abs(pointEstimate / standardError), dof));
  const halfwidth = studentTPpf(1 - alpha / 2, dof) * standardError;
  return {
    expected: pointEstimate,
    ci: [pointEstimate - halfwidth, pointEstimate + halfwidth],
    pValue,
    uplift: { mean: pointEstimate, stddev: standardError },
    errorMessage: null,
  };
}
