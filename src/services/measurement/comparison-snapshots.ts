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

/** How often the current hour's snapshot is taken again while the hour runs. */
export const SNAPSHOT_EVERY_MS = 5 * 60_000;

/**
 * The effect over time (decision 1941): each running comparison's per-variant sums of each metric
 * are kept per hour, taken again every few minutes while the hour runs, so each hour keeps how it
 * ended and a results page draws the effect as it stood at every hour without keeping anything per
 * unit and hour. Only the node whose fold wrote takes them.
 */
export class ComparisonSnapshots {
  readonly #aggregates: ComparisonAggregateStore;
  /** When each comparison's metric was last taken, and of which hour. */
  readonly #taken = new Map<string, { readonly hour: number; readonly at: number }>();

  constructor(aggregates: ComparisonAggregateStore) {
    this.#aggregates = aggregates;
  }

  async take(comparisons: readonly MeasuredComparison[], now: number): Promise<void> {
    const hour = Math.floor(now / 3_600_000);
    for (const { ref, metrics, endsAt } of comparisons) {
      if (endsAt !== null && endsAt < hour * 3_600_000) continue;
      let units: ReadonlyMap<string, number> | undefined;
      for (const metric of metrics) {
        const key = JSON.stringify([ref.projectId, ref.key, metric.id]);
        const last = this.#taken.get(key);
        if (last !== undefined && last.hour === hour && now - last.at < SNAPSHOT_EVERY_MS) continue;
        units ??= await this.#aggregates.unitsByVariant(ref.projectId, ref.key);
        const variants = await variantTotals(this.#aggregates, ref, metric, units);
        await this.#aggregates.putSnapshot(ref.projectId, ref.key, metric.id, { hour, variants });
        this.#taken.set(key, { hour, at: now });
      }
    }
  }
}
