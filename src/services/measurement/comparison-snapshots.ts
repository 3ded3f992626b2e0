import type { Metric } from '../../domain/metric.ts';
import type {
  ComparisonAggregateStore,
  ComparisonSnapshot,
  VariantSums,
} from '../../storage/comparison-aggregate-store.ts';
import type { ComparisonRef, MeasuredComparison } from './comparison-statistics.ts';

const NO_SUMS: VariantSums = { sum: 0, sumSquares: 0, preSum: 0, preSumSquares: 0, sumProducts: 0 };

/**
 * Each variant's units and sums of one metric now: what a snapshot keeps and results analyse.
 * `units` (the comparison's units per variant) may be passed when read already for other metrics.
 */
export async function variantTotals(
  aggregates: Pick<ComparisonAggregateStore, 'unitsByVariant' | 'variantSums'>,
  ref: ComparisonRef,
  metric: Pick<Metric, 'id' | 'kind'>,
  units?: ReadonlyMap<string, number>,
): Promise<ComparisonSnapshot['variants']> {
  const [counts, sums] = await Promise.all([
    units ?? aggregates.unitsByVariant(ref.projectId, ref.key),
    aggregates.variantSums(ref.projectId, ref.key, metric.id, metric.kind),
  ]);
  return Object.fromEntries(
    [...counts].map(([variant, n]) => [variant, { units: n, ...(sums.get(variant) ?? NO_SUMS) }]),
  );
}

/**
 * The effect over time (decision 1941): once an hour, each running comparison's per-variant sums
 * of each metric are kept, so a results page draws the effect as it was at every hour without
 * keeping anything per unit and hour. A node remembers the hours it took; a second node's
 * snapshot of the same hour is not kept.
 */
export class ComparisonSnapshots {
  readonly #aggregates: ComparisonAggregateStore;
  readonly #taken = new Set<string>();

  constructor(aggregates: ComparisonAggregateStore) {
    this.#aggregates = aggregates;
  }

  async take(comparisons: readonly MeasuredComparison[], hour: number): Promise<void> {
    for (const { ref, metrics, endsAt } of comparisons) {
      if (endsAt !== null && endsAt < hour * 3_600_000) continue;
      let units: ReadonlyMap<string, number> | undefined;
      for (const metric of metrics) {
        const taken = JSON.stringify([ref.projectId, ref.key, metric.id, hour]);
        if (this.#taken.has(taken)) continue;
        units ??= await this.#aggregates.unitsByVariant(ref.projectId, ref.key);
        const variants = await variantTotals(this.#aggregates, ref, metric, units);
        await this.#aggregates.insertSnapshot(ref.projectId, ref.key, metric.id, { hour, variants });
        this.#taken.add(taken);
      }
    }
  }
}
