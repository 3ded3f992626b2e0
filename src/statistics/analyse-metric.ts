import { type BayesianResult, effectBayesianABTest } from './effect-bayesian-ab-test.ts';
import type { DifferenceType } from './effect-moments.ts';
import type { FrequentistResult } from './frequentist-result.ts';
import { sequentialTwoSidedTTest } from './sequential-t-test.ts';
import type { TestStatistic } from './statistic.ts';
import { twoSidedTTest } from './two-sided-t-test.ts';
import { type VariantSummary, variantSummary } from './variant-summary.ts';

/** An experiment's analysis settings (SPEC §13 "Experiments") as they bear on one metric. */
export interface AnalysisSettings {
  readonly analysis: 'frequentist' | 'bayesian';
  /** Frequentist only: an always-valid sequential test instead of the fixed-horizon one. */
  readonly sequential?: boolean;
  readonly alpha?: number;
  /** The metric's goal: for `decrease`, the Bayesian chance to win is the chance of a lower mean. */
  readonly goal: 'increase' | 'decrease';
  /** Sequential only: gbstats's sequential_tuning_parameter (default 5,000). */
  readonly tuningParameter?: number;
}

/** The result of the analysis `A`: Bayesian, or frequentist (fixed-horizon or sequential). */
export type ComparisonResult<A extends AnalysisSettings['analysis'] = AnalysisSettings['analysis']> =
  A extends 'bayesian' ? BayesianResult : FrequentistResult;

/** One treatment's row: its summary and its effect over control, relative and absolute. */
export interface TreatmentResult<R = ComparisonResult> extends VariantSummary {
  readonly relative: R;
  readonly absolute: R;
}

export interface MetricResults<R = ComparisonResult> {
  readonly control: VariantSummary;
  readonly treatments: readonly TreatmentResult<R>[];
}

function compare(
  control: TestStatistic,
  treatment: TestStatistic,
  settings: AnalysisSettings,
  differenceType: DifferenceType,
): FrequentistResult | BayesianResult {
  const { alpha } = settings;
  if (settings.analysis === 'bayesian') {
    return effectBayesianABTest(control, treatment, {
      alpha,
      differenceType,
      inverse: settings.goal === 'decrease',
    });
  }
  if (settings.sequential === true) {
    return sequentialTwoSidedTTest(control, treatment, {
      alpha,
      differenceType,
      tuningParameter: settings.tuningParameter,
    });
  }
  return twoSidedTTest(control, treatment, { alpha, differenceType });
}

/**
 * One metric's results, as a results page shows them: control's summary, and each treatment's
 * summary with its relative and absolute effect over control by the experiment's analysis.
 */
export function analyseMetric<S extends AnalysisSettings>(
  control: TestStatistic,
  treatments: readonly TestStatistic[],
  settings: S,
): MetricResults<ComparisonResult<S['analysis']>> {
  const result = (treatment: TestStatistic, difference: DifferenceType) =>
    compare(control, treatment, settings, difference) as ComparisonResult<S['analysis']>;
  return {
    control: variantSummary(control),
    treatments: treatments.map((treatment) => ({
      ...variantSummary(treatment),
      relative: result(treatment, 'relative'),
      absolute: result(treatment, 'absolute'),
    })),
  };
}
