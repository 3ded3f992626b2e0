import { type Clock, systemClock } from '../../domain/clock.ts';
import { flagNotFound, noSuchEnvironment, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { DEFAULT_ENVIRONMENT, type Environment } from '../../domain/project.ts';
import { EvaluationCounter } from '../../insights/evaluation-counter.ts';
import { isoOfMinute, MS_PER_MINUTE } from '../../insights/minutes.ts';
import {
  lastEvaluatedMinute,
  STALE_AFTER_DAYS,
  type Staleness,
  staleness,
  staleWindowStart,
  usageSince,
} from '../../insights/stale.ts';
import type { VariantUsage } from '../../storage/insights-store.ts';
import type { FlagStore, InsightsRole, ProjectStore, StaleFilter } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { HourlyUpkeep } from '../core/hourly-upkeep.ts';
import { accessProject } from '../core/project-access.ts';

/** Bucket widths the insights series offers, in minutes. */
export const STEPS = { '1m': 1, '5m': 5, '15m': 15, '1h': 60, '6h': 360, '1d': 1440 } as const;
export type Step = keyof typeof STEPS;

const RETENTION_MINUTES = STALE_AFTER_DAYS * 24 * 60;
/** A series longer than this is refused: the counts are kept 30 days, a day's slack for time zones. */
const MAX_RANGE_MINUTES = RETENTION_MINUTES + 24 * 60;
const MAX_POINTS = 5000;
/** Points a series aims for when the step is not given. */
const AUTO_POINTS = 200;

export interface SeriesRequest {
  readonly environment?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly step?: Step | undefined;
}

export interface Series {
  readonly variant: string | null;
  readonly reason: string;
  readonly counts: number[];
  readonly total: number;
}

export interface FlagInsights {
  readonly flagId: string;
  readonly flagKey: string;
  readonly environment: string;
  readonly from: string;
  readonly to: string;
  readonly step: Step;
  /** Start of each bucket; `counts` of every series line up with it. */
  readonly buckets: string[];
  readonly series: Series[];
  readonly total: number;
  readonly lastEvaluatedAt: string | null;
}

/** What the flag list shows of each flag's use in one environment. */
export interface FlagUsage {
  readonly lastEvaluatedAt: string | null;
  readonly stale: Staleness | null;
  /** The last evaluation in each of the flag's environments, by key (null: never). */
  readonly lastEvaluatedIn: Readonly<Record<string, string | null>>;
}

const badQuery = (field: string, message: string) =>
  validationFailed(`${field} ${message}.`, [{ path: `querystring:/${field}`, message }]);

function parseTime(field: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw badQuery(field, 'must be an RFC 3339 date-time');
  return ms;
}

/** The store roles insights name: the counts (outside transactions), and the flags and projects they are of. */
export type InsightsRoles = InsightsRole & ProjectStore & FlagStore;

/** Evaluation counts per flag (docs/product.md §10): counted in memory, flushed in batches, read back as series and staleness. */
export class InsightsService {
  readonly #store: InsightsRoles;
  readonly #clock: Clock;
  /** null when insights are off (FLAGSTAFF_INSIGHTS=off): nothing is counted. */
  readonly counter: EvaluationCounter | null;
  readonly #pruning = new HourlyUpkeep();

  constructor(
    store: InsightsRoles,
    options: { clock?: Clock | undefined; enabled?: boolean | undefined } = {},
  ) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.counter = options.enabled === false ? null : new EvaluationCounter();
  }

  /**
   * Writes what was counted since the last flush in one transaction, adding to what other nodes
   * wrote; hourly, also drops buckets older than 30 days. Counts that fail to write are kept for the next flush.
   */
  async flush(): Promise<void> {
    if (this.counter === null) return;
    const rows = this.counter.drain();
    try {
      await this.#store.insights.addEvaluationCounts(rows);
    } catch (error) {
      this.counter.giveBack(rows);
      throw error;
    }
    const now = this.#clock();
    if (this.#pruning.due(now)) {
      this.#pruning.ran(now);
      await this.#store.insights.pruneEvaluationCounts(Math.floor(now / MS_PER_MINUTE) - RETENTION_MINUTES);
    }
  }

  /** The series of one flag in one environment, per variant and reason; read access as for the flag itself. */
  async series(actor: Actor, flagId: string, request: SeriesRequest): Promise<FlagInsights> {
    const flag = await this.#store.findFlagById(flagId);
    // Another project's flag, as the route's check found it, is answered as an unknown one (decision 0020).
    if (flag === undefined || (actor.grant !== undefined && actor.grant.projectId !== flag.projectId))
      throw flagNotFound(`No flag with id "${flagId}".`);
    const project = await accessProject(this.#store, actor, flag.projectId, 'viewer');
    const environment = request.environment ?? DEFAULT_ENVIRONMENT;
    if ((await this.#store.findEnvironment(project.id, environment)) === undefined) {
      throw noSuchEnvironment(environment, project.key);
    }
    const now = this.#clock();
    const toMs = parseTime('to', request.to, now);
    const fromMs = parseTime('from', request.from, toMs - 24 * 60 * MS_PER_MINUTE);
    if (fromMs >= toMs) throw badQuery('from', 'must be before to');
    const rangeMinutes = Math.ceil((toMs - fromMs) / MS_PER_MINUTE);
    if (rangeMinutes > MAX_RANGE_MINUTES)
      throw badQuery('from', `must be at most ${STALE_AFTER_DAYS} days before to`);
    const step =
      request.step ??
      (Object.keys(STEPS) as Step[]).find((s) => rangeMinutes / STEPS[s] <= AUTO_POINTS) ??
      '1d';
    const stepMinutes = STEPS[step];
    const fromMinute = Math.floor(fromMs / MS_PER_MINUTE / stepMinutes) * stepMinutes;
    const toMinute = Math.ceil(toMs / MS_PER_MINUTE / stepMinutes) * stepMinutes;
    const points = (toMinute - fromMinute) / stepMinutes;
    if (points > MAX_POINTS)
      throw badQuery('step', `gives ${points} points; at most ${MAX_POINTS} are served`);

    // Minutes before the flag was created belong to a deleted flag that had its key.
    const firstMinute = Math.max(fromMinute, Math.floor(Date.parse(flag.createdAt) / MS_PER_MINUTE));
    const [rows, usage] = await Promise.all([
      this.#store.insights.evaluationSeries({
        projectId: project.id,
        flagKey: flag.key,
        environment,
        fromMinute: firstMinute,
        toMinute,
        stepMinutes,
      }),
      this.#store.insights.variantUsage(project.id, { flagKeys: [flag.key], environment }),
    ]);
    const series = new Map<string, Series>();
    for (const row of rows) {
      const id = JSON.stringify([row.variant, row.reason]);
      let line = series.get(id);
      if (line === undefined) {
        line = { variant: row.variant, reason: row.reason, counts: new Array(points).fill(0), total: 0 };
        series.set(id, line);
      }
      line.counts[(row.minute - fromMinute) / stepMinutes] = row.count;
      (line as { total: number }).total += row.count;
    }
    const last = lastEvaluatedMinute(usageSince(usage, flag.createdAt));
    const lines = [...series.values()].sort(
      (a, b) => (a.variant ?? '').localeCompare(b.variant ?? '') || a.reason.localeCompare(b.reason),
    );
    return {
      flagId: flag.id,
      flagKey: flag.key,
      environment,
      from: isoOfMinute(fromMinute),
      to: isoOfMinute(toMinute),
      step,
      buckets: Array.from({ length: points }, (_, i) => isoOfMinute(fromMinute + i * stepMinutes)),
      series: lines,
      total: lines.reduce((sum, line) => sum + line.total, 0),
      lastEvaluatedAt: last === undefined ? null : isoOfMinute(last),
    };
  }

  /**
   * Last evaluation and staleness of each flag in one environment, and its last evaluation in each of
   * its environments (the caller has read the flags: a page of them, so only their usage is read).
   */
  async usageIn(
    projectId: string,
    environment: string,
    flags: readonly Flag[],
  ): Promise<Map<string, FlagUsage>> {
    if (flags.length === 0) return new Map();
    const usage = await this.#store.insights.variantUsage(projectId, { flagKeys: flags.map((f) => f.key) });
    const byFlag = groupByFlag(usage);
    const now = this.#clock();
    const lastIn = (own: readonly VariantUsage[], key: string) => {
      const last = lastEvaluatedMinute(own.filter((u) => u.environment === key));
      return last === undefined ? null : isoOfMinute(last);
    };
    return new Map(
      flags.map((flag) => {
        const own = usageSince(byFlag.get(flag.key) ?? [], flag.createdAt);
        const here = own.filter((u) => u.environment === environment);
        return [
          flag.key,
          {
            lastEvaluatedAt: lastIn(own, environment),
            stale: staleness(flag, environment, here, now) ?? null,
            lastEvaluatedIn: Object.fromEntries(
              Object.keys(flag.environments).map((key) => [key, lastIn(own, key)]),
            ),
          },
        ];
      }),
    );
  }

  /** `?stale=` of the flag list, for the store to answer with the page (docs/decisions/1801). */
  staleFilter(environment: string, stale: boolean): StaleFilter {
    return { environment, stale, windowStartMinute: staleWindowStart(this.#clock()) };
  }

  /** The last evaluation of one flag in each of its environments (null: never). */
  async lastEvaluatedAt(flag: Flag): Promise<Record<string, string | null>> {
    const usage = usageSince(
      await this.#store.insights.variantUsage(flag.projectId, { flagKeys: [flag.key] }),
      flag.createdAt,
    );
    const out: Record<string, string | null> = {};
    for (const environment of Object.keys(flag.environments)) {
      const last = lastEvaluatedMinute(usage.filter((u) => u.environment === environment));
      out[environment] = last === undefined ? null : isoOfMinute(last);
    }
    return out;
  }

  /** The last evaluation of any flag in each of a project's environments (the caller has read them). */
  async environmentsLastEvaluated(environments: readonly Environment[]): Promise<Map<string, string>> {
    const [first] = environments;
    if (first === undefined) return new Map();
    const usage = await this.#store.insights.variantUsage(first.projectId, {});
    const out = new Map<string, string>();
    for (const environment of environments) {
      // Minutes before the environment's creation belong to a deleted namesake.
      const last = lastEvaluatedMinute(
        usageSince(
          usage.filter((u) => u.environment === environment.key),
          environment.createdAt,
        ),
      );
      if (last !== undefined) out.set(environment.key, isoOfMinute(last));
    }
    return out;
  }

  /** The project's most evaluated flags in an environment over the last `days` days. */
  async topFlags(
    actor: Actor,
    projectIdOrKey: string,
    request: { environment?: string | undefined; days: number; limit: number },
  ): Promise<{ environment: string; from: string; flags: { key: string; count: number }[] }> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    const environment = request.environment ?? DEFAULT_ENVIRONMENT;
    if ((await this.#store.findEnvironment(project.id, environment)) === undefined) {
      throw noSuchEnvironment(environment, project.key);
    }
    const fromMinute = Math.floor(this.#clock() / MS_PER_MINUTE) - request.days * 24 * 60;
    const top = await this.#store.insights.topFlags(project.id, environment, fromMinute, request.limit);
    return {
      environment,
      from: isoOfMinute(fromMinute),
      flags: top.map((t) => ({ key: t.flagKey, count: t.count })),
    };
  }
}

function groupByFlag(usage: readonly VariantUsage[]): Map<string, VariantUsage[]> {
  const byFlag = new Map<string, VariantUsage[]>();
  for (const u of usage) {
    const list = byFlag.get(u.flagKey);
    if (list === undefined) byFlag.set(u.flagKey, [u]);
    else list.push(u);
  }
  return byFlag;
}
