// The statistics part (docs/statistics.md): pure functions over per-variant sufficient statistics,
// held to GrowthBook's gbstats by the fixtures in test/fixtures/gbstats. No I/O, no clock.
export type { AnalysisSettings, ComparisonResult, MetricResults, TreatmentResult } from './analyse-metric.ts';
export { analyseMetric } from './analyse-metric.ts';
export type { BayesianOptions, BayesianResult, GaussianPrior } from './effect-bayesian-ab-test.ts';
export { DEFAULT_PRIOR, effectBayesianABTest } from './effect-bayesian-ab-test.ts';
export type { DifferenceType, EffectProblem } from './effect-moments.ts';
export type { FrequentistOptions, FrequentistResult } from './frequentist-result.ts';
export { SRM_WARNING_P_VALUE, sampleRatioMismatch, srmPValue } from './sample-ratio-mismatch.ts';
export type { GuardOptions, GuardVerdict } from './sequential-guard.ts';
export { sequentialGuard } from './sequential-guard.ts';
export type { SequentialOptions, Side } from './sequential-t-test.ts';
export { sequentialOneSidedTTest, sequentialTwoSidedTTest } from './sequential-t-test.ts';
export type {
  BaseStatistic,
  ProportionStatistic,
  RegressionAdjustedStatistic,
  SampleMeanStatistic,
  TestStatistic,
} from './statistic.ts';
export { statisticProblem } from './statistic-problem.ts';
export { twoSidedTTest } from './two-sided-t-test.ts';
export type { VariantSummary } from './variant-summary.ts';
export { variantSummary } from './variant-summary.ts';
