import { type Clock, systemClock } from '../../domain/clock.ts';
import type { Exposure } from '../../domain/exposure.ts';
import type { Metric } from '../../domain/metric.ts';
import { dayOf } from '../../domain/tracking-event.ts';
import type {
  ComparisonUnit,
  FoldEvent,
  FoldPosition,
  MetricUnitIncrement,
  UnitDayIncrement,
} from '../../storage/comparison-aggregate-store.ts';
import type { MeasurementRole } from '../../storage/store.ts';
import { ComparisonSnapshots } from './comparison-snapshots.ts';
import type { MeasuredComparison, MeasuredComparisons } from './comparison-statistics.ts';

/** Days before a unit's first exposure whose events are its CUPED covariate (GrowthBook's default). */
export const CUPED_LOOKBACK_DAYS = 14;
/** How often each node tries a pass; the cursor lets one of them fold each stretch. */
export const FOLD_EVERY_MS = 5000;
/**
 * Events are folded once they are this old: by then the exposures of their units (flushed every
 * 10 s) are stored, so an event is never read before the exposure that puts it in a window.
 */
export const SETTLE_MS = 30_000;
/** Rows one step reads of each table. */
const PAGE = 5000;
const MS_PER_HOUR = 3_600_000;

const comparisonKey = (projectId: string, key: string) => JSON.stringify([projectId, key]);

/** Increments added up by key, so a statement touches each row once. */
class Increments<T extends object> {
  readonly #byKey = new Map<string, T>();
  readonly #add: (into: T, more: T) => T;

  constructor(add: (into: T, more: T) => T) {
    this.#add = add;
  }

  add(key: string, increment: T): void {
    const known = this.#byKey.get(key);
    this.#byKey.set(key, known === undefined ? increment : this.#add(known, increment));
  }

  get values(): T[] {
    return [...this.#byKey.values()];
  }
}

/** One step's worth of what the fold writes. */
class StepRows {
  readonly units: ComparisonUnit[] = [];
  readonly metricUnits = new Increments<MetricUnitIncrement>((a, b) => ({
    ...a,
    count: a.count + b.count,
    sum: a.sum + b.sum,
    preCount: a.preCount + b.preCount,
    preSum: a.preSum + b.preSum,
  }));
  readonly unitDays = new Increments<UnitDayIncrement>((a, b) => ({
    ...a,
    count: a.count + b.count,
    sum: a.sum + b.sum,
  }));

  addMetric(
    unit: ComparisonUnit,
    metric: Metric,
    values: Pick<MetricUnitIncrement, 'count' | 'sum' | 'preCount' | 'preSum'>,
  ) {
    this.metricUnits.add(JSON.stringify([unit.comparison, metric.id, unit.unit]), {
      projectId: unit.projectId,
      comparison: unit.comparison,
      metricId: metric.id,
      unit: unit.unit,
      variant: unit.variant,
      ...values,
    });
  }
}

/** Whether day `day` is in the unit's pre-exposure lookback. */
const beforeExposure = (unit: ComparisonUnit, day: number) => {
  const first = dayOf(unit.firstAt);
  return day >= first - CUPED_LOOKBACK_DAYS && day < first;
};

/**
 * The background pass that keeps per-unit aggregates (decision 1941): it folds new exposures into
 * the comparisons' units (with their pre-exposure days, CUPED's covariate), then new metric events
 * into each exposed unit's window, and into per-unit days for units exposed later. Every node runs
 * it; a compare-and-set on one cursor lets exactly one write each stretch. Results read only
 * these aggregates, never the raw events.
 */
export class AggregateFold {
  readonly #store: MeasurementRole;
  readonly #comparisons: MeasuredComparisons;
  readonly #clock: Clock;
  readonly #settleMs: number;
  /** The ends of the tables as seen at times past: events are folded up to one at least settleMs old. */
  #marks: { readonly at: number; readonly end: FoldPosition }[] = [];
  readonly #snapshots: ComparisonSnapshots;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<unknown> | undefined;

  constructor(
    store: MeasurementRole,
    comparisons: MeasuredComparisons,
    options: { readonly clock?: Clock; readonly settleMs?: number } = {},
  ) {
    this.#store = store;
    this.#comparisons = comparisons;
    this.#clock = options.clock ?? systemClock;
    this.#settleMs = options.settleMs ?? SETTLE_MS;
    this.#snapshots = new ComparisonSnapshots(store.aggregates);
  }

  /** Folds everything settled, step by step; answers how many events and exposures this node folded. */
  async pass(): Promise<{ readonly events: number; readonly exposures: number }> {
    const now = this.#clock();
    const end = await this.#store.aggregates.foldEnd();
    const eventsUpTo = this.#settled(now, end);
    const comparisons = await this.#comparisons.measured();
    const folded = { events: 0, exposures: 0 };
    for (;;) {
      const step = await this.#step(comparisons, { events: eventsUpTo, exposures: end.exposures });
      if (step === undefined) return folded;
      folded.events += step.events;
      folded.exposures += step.exposures;
      if (!step.more) break;
    }
    await this.#snapshots.take(comparisons, now);
    return folded;
  }

  /** Passes every FOLD_EVERY_MS until `stop`; a failed pass is retried by the next. */
  start(onError: (error: unknown) => void): void {
    this.#timer ??= setInterval(() => {
      this.#running ??= this.pass()
        .catch(onError)
        .finally(() => {
          this.#running = undefined;
        });
    }, FOLD_EVERY_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** The latest end seen at least settleMs ago (undefined: none yet, fold no events). */
  #settled(now: number, end: FoldPosition): string | undefined {
    this.#marks.push({ at: now, end });
    const old = this.#marks.filter((m) => m.at <= now - this.#settleMs);
    const settled = old.at(-1);
    if (settled !== undefined) this.#marks = this.#marks.filter((m) => m.at >= settled.at);
    return settled?.end.events;
  }

  /** One step: read, work out, write with the cursor's move. Undefined when another node moved it. */
  async #step(
    comparisons: readonly MeasuredComparison[],
    upTo: { readonly events: string | undefined; readonly exposures: string },
  ): Promise<{ events: number; exposures: number; more: boolean } | undefined> {
    const { aggregates } = this.#store;
    const { position, version } = await aggregates.foldCursor();
    const byKey = new Map(comparisons.map((c) => [comparisonKey(c.ref.projectId, c.ref.key), c]));
    const rows = new StepRows();
    const exposures = await aggregates.readExposures(position.exposures, upTo.exposures, PAGE);
    const units = await this.#foldExposures(exposures.rows, byKey, rows);
    // Units first: events wait until every exposure up to the end is folded.
    const events =
      exposures.more || upTo.events === undefined
        ? { rows: [], next: position.events, more: false }
        : await this.#readEvents(position.events, upTo.events);
    await this.#foldEvents(events.rows, comparisons, units, rows);
    const applied = await aggregates.applyFold(
      {
        to: { events: events.next, exposures: exposures.next },
        units: rows.units,
        metricUnits: rows.metricUnits.values,
        unitDays: rows.unitDays.values,
      },
      version,
    );
    if (!applied) return undefined;
    return { events: events.rows.length, exposures: rows.units.length, more: exposures.more || events.more };
  }

  async #readEvents(after: string, upTo: string) {
    const metricEvents = await this.#store.aggregates.metricEvents();
    const names = [...new Set(metricEvents.map((m) => m.event))];
    const read = await this.#store.aggregates.readEvents(after, upTo, names, PAGE);
    // Only the events a metric of their own project counts.
    const counted = new Set(metricEvents.map((m) => JSON.stringify([m.projectId, m.event])));
    return { ...read, rows: read.rows.filter((e) => counted.has(JSON.stringify([e.projectId, e.name]))) };
  }

  /** New units of the comparisons, each with its pre-exposure days of every metric it reads. */
  async #foldExposures(
    exposures: readonly Exposure[],
    byKey: ReadonlyMap<string, MeasuredComparison>,
    rows: StepRows,
  ): Promise<Map<string, ComparisonUnit>> {
    const units = new Map<string, ComparisonUnit>();
    for (const e of exposures) {
      if (!byKey.has(comparisonKey(e.projectId, e.experiment))) continue;
      const unit = {
        projectId: e.projectId,
        comparison: e.experiment,
        unit: e.unit,
        variant: e.variant,
        firstAt: e.firstAt,
      };
      units.set(JSON.stringify([e.projectId, e.experiment, e.unit]), unit);
      rows.units.push(unit);
    }
    for (const comparison of byKey.values()) {
      const { projectId, environment, key } = comparison.ref;
      const mine = rows.units.filter((u) => u.projectId === projectId && u.comparison === key);
      if (mine.length === 0) continue;
      const days = mine.map((u) => dayOf(u.firstAt));
      const from = Math.min(...days) - CUPED_LOOKBACK_DAYS;
      const to = Math.max(...days);
      for (const metric of comparison.metrics) {
        const pre = await this.#store.aggregates.unitDays({
          projectId,
          environment,
          event: metric.event,
          units: mine.map((u) => u.unit),
          fromDay: from,
          toDay: to,
        });
        for (const day of pre) {
          const unit = units.get(JSON.stringify([projectId, key, day.unit])) as ComparisonUnit;
          if (!beforeExposure(unit, day.day)) continue;
          rows.addMetric(unit, metric, { count: 0, sum: 0, preCount: day.count, preSum: day.sum });
        }
      }
    }
    return units;
  }

  /** Each event into its unit's day, and into the window (or the lookback) of every comparison that exposed it. */
  async #foldEvents(
    events: readonly FoldEvent[],
    comparisons: readonly MeasuredComparison[],
    fresh: ReadonlyMap<string, ComparisonUnit>,
    rows: StepRows,
  ): Promise<void> {
    if (events.length === 0) return;
    for (const e of events) {
      const day = dayOf(e.at);
      rows.unitDays.add(JSON.stringify([e.projectId, e.environment, e.name, e.unit, day]), {
        projectId: e.projectId,
        environment: e.environment,
        event: e.name,
        unit: e.unit,
        day,
        count: 1,
        sum: e.value ?? 0,
      });
    }
    for (const comparison of comparisons) {
      const { projectId, environment, key } = comparison.ref;
      const names = new Set(comparison.metrics.map((m) => m.event));
      const mine = events.filter(
        (e) => e.projectId === projectId && e.environment === environment && names.has(e.name),
      );
      if (mine.length === 0) continue;
      const stored = await this.#store.aggregates.foldedUnits(
        projectId,
        key,
        mine.map((e) => e.unit),
      );
      const units = new Map(stored.map((u) => [u.unit, u]));
      for (const e of mine) {
        const unit = units.get(e.unit) ?? fresh.get(JSON.stringify([projectId, key, e.unit]));
        if (unit === undefined) continue;
        for (const metric of comparison.metrics) {
          if (metric.event === e.name) this.#attribute(rows, comparison, unit, metric, e);
        }
      }
    }
  }

  #attribute(
    rows: StepRows,
    comparison: MeasuredComparison,
    unit: ComparisonUnit,
    metric: Metric,
    e: FoldEvent,
  ): void {
    const value = e.value ?? 0;
    const inWindow =
      e.at >= unit.firstAt &&
      e.at < unit.firstAt + metric.window * MS_PER_HOUR &&
      (comparison.endsAt === null || e.at < comparison.endsAt);
    if (inWindow) rows.addMetric(unit, metric, { count: 1, sum: value, preCount: 0, preSum: 0 });
    else if (beforeExposure(unit, dayOf(e.at)))
      rows.addMetric(unit, metric, { count: 0, sum: 0, preCount: 1, preSum: value });
  }
}
