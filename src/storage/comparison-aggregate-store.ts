import type { Exposure } from '../domain/exposure.ts';

// The per-unit aggregates measured comparisons read (decision 1941), kept by a fold of events and
// exposures in the order they arrived. Positions are the adapter's own (opaque to the fold):
// SQLite's rowids, PostgreSQL's inserting transaction ids.

/** How far the fold has read each table: everything up to these positions is folded. */
export interface FoldPosition {
  readonly events: string;
  readonly exposures: string;
}

/** The start: nothing folded. */
export const FOLD_START: FoldPosition = { events: '', exposures: '' };

/** A tracking event as the fold reads it. */
export interface FoldEvent {
  readonly projectId: string;
  readonly environment: string;
  readonly name: string;
  readonly unit: string;
  /** ms since the epoch. */
  readonly at: number;
  readonly value: number | null;
}

/** Rows read after a position, the position after them (never before it), and whether more wait beyond. */
export interface FoldRead<T> {
  readonly rows: readonly T[];
  readonly next: string;
  readonly more: boolean;
}

/** A unit a comparison took in: the variant and time of its first exposure as the fold saw it. */
export interface ComparisonUnit {
  readonly projectId: string;
  readonly comparison: string;
  readonly unit: string;
  readonly variant: string;
  readonly firstAt: number;
}

/** What a unit adds to one metric of one comparison: events in its window, and before its exposure. */
export interface MetricUnitIncrement {
  readonly projectId: string;
  readonly comparison: string;
  readonly metricId: string;
  readonly unit: string;
  readonly variant: string;
  readonly count: number;
  readonly sum: number;
  readonly preCount: number;
  readonly preSum: number;
}

/** Metric events of one unit on one day (UTC), whoever is exposed. */
export interface UnitDayIncrement {
  readonly projectId: string;
  readonly environment: string;
  readonly event: string;
  readonly unit: string;
  readonly day: number;
  readonly count: number;
  readonly sum: number;
}

/** One step of the fold, written at once with the cursor's move. */
export interface FoldStep {
  readonly to: FoldPosition;
  readonly units: readonly ComparisonUnit[];
  readonly metricUnits: readonly MetricUnitIncrement[];
  readonly unitDays: readonly UnitDayIncrement[];
}

/** How a metric's per-unit value is read from its aggregates. */
export type AggregateKind = 'conversion' | 'count' | 'sum';

/** Per variant, over the units with aggregates: Σ post, Σ post², Σ pre, Σ pre², Σ post·pre. */
export interface VariantSums {
  readonly sum: number;
  readonly sumSquares: number;
  readonly preSum: number;
  readonly preSumSquares: number;
  readonly sumProducts: number;
}

/** One hourly snapshot of a comparison's metric: each variant's units and sums. */
export interface ComparisonSnapshot {
  /** Hours since the epoch. */
  readonly hour: number;
  readonly variants: Readonly<Record<string, { readonly units: number } & VariantSums>>;
}

/**
 * Which units' days of one event a comparison reads (its covariate before exposure): named fields,
 * since the environment, event and the two days bounding the range are easily swapped by position.
 */
export interface UnitDaysQuery {
  readonly projectId: string;
  readonly environment: string;
  readonly event: string;
  readonly units: readonly string[];
  /** The first day read (days since the epoch). */
  readonly fromDay: number;
  /** The first day not read. */
  readonly toDay: number;
}

export interface ComparisonAggregateStore {
  /** Where the fold is, with the version its next move must find. */
  foldCursor(): Promise<{ readonly position: FoldPosition; readonly version: number }>;
  /** The current end of both tables: every row that arrived so far lies at or before it. */
  foldEnd(): Promise<FoldPosition>;
  /** Exposures after `after`, up to `upTo`, arrival order, at most about `limit`. */
  readExposures(after: string, upTo: string, limit: number): Promise<FoldRead<Exposure>>;
  /** Events with one of `names` after `after`, up to `upTo`, arrival order, at most about `limit`. */
  readEvents(
    after: string,
    upTo: string,
    names: readonly string[],
    limit: number,
  ): Promise<FoldRead<FoldEvent>>;
  /** The comparison's folded units among `units`. */
  foldedUnits(
    projectId: string,
    comparison: string,
    units: readonly string[],
  ): Promise<readonly ComparisonUnit[]>;
  /** The days of `event` of each of `units` with `fromDay` ≤ day < `toDay`. */
  unitDays(query: UnitDaysQuery): Promise<readonly UnitDayIncrement[]>;
  /**
   * Writes the step and moves the cursor from `expectedVersion`, in one transaction; false (and
   * nothing written) when another node moved it first. Increments add to what is stored.
   */
  applyFold(step: FoldStep, expectedVersion: number): Promise<boolean>;
  /** Units per variant of a comparison. */
  unitsByVariant(projectId: string, comparison: string): Promise<ReadonlyMap<string, number>>;
  /** A metric's sums per variant over the comparison's units (units without aggregates add 0). */
  variantSums(
    projectId: string,
    comparison: string,
    metricId: string,
    kind: AggregateKind,
  ): Promise<ReadonlyMap<string, VariantSums>>;
  /** Keeps the snapshot of its hour, in place of any taken earlier in that hour. */
  putSnapshot(
    projectId: string,
    comparison: string,
    metricId: string,
    snapshot: ComparisonSnapshot,
  ): Promise<void>;
  /** A comparison metric's snapshots, oldest first. */
  listSnapshots(
    projectId: string,
    comparison: string,
    metricId: string,
  ): Promise<readonly ComparisonSnapshot[]>;
  /** The event names metrics of each project count: the fold keeps their per-unit days. */
  metricEvents(): Promise<readonly { readonly projectId: string; readonly event: string }[]>;
}
