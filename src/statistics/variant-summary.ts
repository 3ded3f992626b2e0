import { statisticStddev, type TestStatistic } from './statistic.ts';

/** What a results page shows of one variant on one metric, as observed (no CUPED adjustment). */
export interface VariantSummary {
  readonly units: number;
  readonly mean: number;
  readonly stddev: number;
}

/** Units, mean and per-unit standard deviation of a variant (gbstats's users, cr and stddev). */
export function variantSummary(stat: TestStatistic): VariantSummary {
  const observed = stat.kind === 'regression-adjusted' ? stat.post : stat;
  return {
    units: stat.n,
    mean: observed.n === 0 ? 0 : observed.sum / observed.n,
    stddev: statisticStddev(observed),
  };
}
