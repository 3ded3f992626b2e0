import type { Metric } from '../../domain/metric.ts';
import type { TestStatistic } from '../../statistics/index.ts';

/**
 * A measured comparison (SPEC §13): an experiment, or a release plan's milestone comparing the new
 * variant against the old. Both expose units under the comparison's key (`RunningExperiment.key`),
 * and the per-unit aggregates kept for that key answer here.
 */
export interface ComparisonRef {
  readonly projectId: string;
  readonly environment: string;
  /** The key units are exposed under: an experiment's id, or `release:<plan id>`. */
  readonly key: string;
}

/** Per-variant sufficient statistics of one metric over the units exposed to one comparison. */
export interface ComparisonStatistics {
  /**
   * Each variant's statistic of `metric` over its exposed units (units with no event count 0), from
   * the incrementally kept per-unit aggregates, never a rescan of raw events. `cuped` asks for the
   * regression-adjusted form with the pre-exposure covariate.
   */
  variantStatistics(
    comparison: ComparisonRef,
    metric: Metric,
    options?: { readonly cuped?: boolean },
  ): Promise<ReadonlyMap<string, TestStatistic>>;
}

/** A comparison the aggregate fold keeps per-unit aggregates for, with the metrics it reads. */
export interface MeasuredComparison {
  readonly ref: ComparisonRef;
  readonly metrics: readonly Metric[];
  /** When it stopped (ms since the epoch): later events are not counted; null while it runs. */
  readonly endsAt: number | null;
}

/**
 * The comparisons whose units and metrics the fold keeps (decision 1941): experiments that ran,
 * and release plans' measured milestones; `combineMeasuredComparisons` joins the sources.
 */
export interface MeasuredComparisons {
  measured(): Promise<readonly MeasuredComparison[]>;
}

export function combineMeasuredComparisons(...sources: readonly MeasuredComparisons[]): MeasuredComparisons {
  return { measured: async () => (await Promise.all(sources.map((s) => s.measured()))).flat() };
}
