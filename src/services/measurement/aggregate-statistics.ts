import type { Metric, MetricKind } from '../../domain/metric.ts';
import type { BaseStatistic, TestStatistic } from '../../statistics/index.ts';
import type {
  ComparisonAggregateStore,
  ComparisonSnapshot,
} from '../../storage/comparison-aggregate-store.ts';
import { variantTotals } from './comparison-snapshots.ts';
import type { ComparisonRef, ComparisonStatistics } from './comparison-statistics.ts';

type Totals = ComparisonSnapshot['variants'][string];

function base(kind: MetricKind, n: number, sum: number, sumSquares: number): BaseStatistic {
  return kind === 'conversion' ? { kind: 'proportion', n, sum } : { kind: 'sample-mean', n, sum, sumSquares };
}

/** A variant's sufficient statistic of a metric from its units and sums; with CUPED, against its pre-exposure value. */
export function statisticOf(kind: MetricKind, totals: Totals, cuped: boolean): TestStatistic {
  const n = totals.units;
  const post = base(kind, n, totals.sum, totals.sumSquares);
  if (!cuped) return post;
  return {
    kind: 'regression-adjusted',
    n,
    post,
    pre: base(kind, n, totals.preSum, totals.preSumSquares),
    postPreSumOfProducts: totals.sumProducts,
  };
}

/** ComparisonStatistics over the per-unit aggregates the fold keeps: two grouped reads, whatever the units. */
export class AggregateComparisonStatistics implements ComparisonStatistics {
  readonly #aggregates: ComparisonAggregateStore;

  constructor(aggregates: ComparisonAggregateStore) {
    this.#aggregates = aggregates;
  }

  async variantStatistics(
    comparison: ComparisonRef,
    metric: Metric,
    options: { readonly cuped?: boolean } = {},
  ): Promise<ReadonlyMap<string, TestStatistic>> {
    const totals = await variantTotals(this.#aggregates, comparison, metric);
    return new Map(
      Object.entries(totals).map(([variant, t]) => [
        variant,
        statisticOf(metric.kind, t, options.cuped === true),
      ]),
    );
  }
}
