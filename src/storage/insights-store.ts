/** Evaluations of one flag in one environment in one minute, with one variant and reason. */
export interface EvaluationCount {
  readonly projectId: string;
  readonly flagKey: string;
  readonly environment: string;
  /** Minutes since the Unix epoch. */
  readonly minute: number;
  readonly variant: string | null;
  readonly reason: string;
  readonly count: number;
}

export interface SeriesQuery {
  readonly projectId: string;
  readonly flagKey: string;
  readonly environment: string;
  /** First minute counted. */
  readonly fromMinute: number;
  /** First minute not counted. */
  readonly toMinute: number;
  /** Minutes per bucket; buckets start at multiples of it. */
  readonly stepMinutes: number;
}

/** Evaluations of one variant and reason in the bucket starting at `minute`. */
export interface SeriesRow {
  readonly minute: number;
  readonly variant: string | null;
  readonly reason: string;
  readonly count: number;
}

/** When a variant of a flag was first and last served in an environment. */
export interface VariantUsage {
  readonly flagKey: string;
  readonly environment: string;
  readonly variant: string | null;
  readonly firstMinute: number;
  readonly lastMinute: number;
}

/** Evaluations of one flag in a range of minutes, all variants and environments together. */
export interface FlagTotal {
  readonly flagKey: string;
  readonly count: number;
}

/** Storage of evaluation counts for insights (docs/product.md §10). */
export interface InsightsStore {
  /** Adds the counts to the stored ones in one transaction: flushes of several nodes merge by addition. */
  addEvaluationCounts(counts: readonly EvaluationCount[]): Promise<void>;
  /** Sums of one flag in one environment per step-aligned bucket, variant and reason; only non-zero buckets. */
  evaluationSeries(query: SeriesQuery): Promise<readonly SeriesRow[]>;
  /** Variant usage of a project's flags: every flag, or only `flagKeys`; every environment, or only `environment`. */
  variantUsage(
    projectId: string,
    filter: { readonly flagKeys?: readonly string[]; readonly environment?: string },
  ): Promise<readonly VariantUsage[]>;
  /** The project's most evaluated flags in an environment since `fromMinute`, most first. */
  topFlags(
    projectId: string,
    environment: string,
    fromMinute: number,
    limit: number,
  ): Promise<readonly FlagTotal[]>;
  /** Deletes minute buckets before `beforeMinute`; variant usage stays (it says when a flag was last evaluated). */
  pruneEvaluationCounts(beforeMinute: number): Promise<void>;
}
