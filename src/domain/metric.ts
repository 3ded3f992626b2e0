// Metrics (SPEC §13): what an experiment measures per unit, from the tracking events a project
// receives. Conversion: the unit sent the event at least once in its window (a proportion); count:
// events per unit; sum: the sum of `value` per unit (units with none count 0).

export const METRIC_KINDS = ['conversion', 'count', 'sum'] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

/** Which way is better: an experiment's figures say whether a treatment moved the metric this way. */
export const METRIC_GOALS = ['increase', 'decrease'] as const;
export type MetricGoal = (typeof METRIC_GOALS)[number];

/** Hours after a unit's first exposure that its events count, unless the metric says otherwise. */
export const DEFAULT_WINDOW_HOURS = 72;
/** A window may not outlast the events kept (FLAGSTAFF_EVENT_RETENTION_DAYS at its most: 10 years). */
export const MAX_WINDOW_HOURS = 3650 * 24;

export interface Metric {
  readonly id: string;
  readonly projectId: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /** The tracking event's name it counts. */
  readonly event: string;
  readonly kind: MetricKind;
  /** Hours after a unit's first exposure. */
  readonly window: number;
  readonly goal: MetricGoal;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}
