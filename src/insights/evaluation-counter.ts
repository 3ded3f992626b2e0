import type { EvaluationCount } from '../storage/insights-store.ts';

/** What the counter needs of an evaluation result. */
export interface Counted {
  readonly key: string;
  readonly variant: string | null;
  readonly reason: string;
}

/** Counts of one flag by variant, then by reason. */
type FlagCounts = Map<string | null, Record<string, number>>;

/** The counts of one project and environment in the current minute. */
interface ScopeCounts {
  readonly projectId: string;
  readonly environment: string;
  readonly flags: Map<string, FlagCounts>;
}

const MS_PER_MINUTE = 60_000;

/**
 * Counts evaluations per flag, environment, variant, reason and minute in memory (SPEC §10).
 * The hot path does a few map lookups and an increment; `drain` hands the counts to the flush,
 * which writes them off the request path.
 */
export class EvaluationCounter {
  readonly #clock: () => number;
  #minute = Number.NaN;
  /** Keyed by project id and environment key; replaced when the minute turns. */
  #scopes = new Map<string, ScopeCounts>();
  /** Finished minutes and counts a failed flush gave back, waiting for the next drain. */
  #waiting: EvaluationCount[] = [];

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  /** The counts of one flag in the current minute, made on first use. */
  #flag(projectId: string, environment: string, flagKey: string): FlagCounts {
    const minute = Math.floor(this.#clock() / MS_PER_MINUTE);
    if (minute !== this.#minute) {
      this.#waiting.push(...this.#rows());
      this.#scopes = new Map();
      this.#minute = minute;
    }
    const scopeKey = `${projectId}\n${environment}`;
    let scope = this.#scopes.get(scopeKey);
    if (scope === undefined) {
      scope = { projectId, environment, flags: new Map() };
      this.#scopes.set(scopeKey, scope);
    }
    let flag = scope.flags.get(flagKey);
    if (flag === undefined) {
      flag = new Map();
      scope.flags.set(flagKey, flag);
    }
    return flag;
  }

  /** Counts one evaluation. */
  count(projectId: string, environment: string, result: Counted): void {
    const flag = this.#flag(projectId, environment, result.key);
    let byReason = flag.get(result.variant);
    if (byReason === undefined) {
      byReason = {};
      flag.set(result.variant, byReason);
    }
    byReason[result.reason] = (byReason[result.reason] ?? 0) + 1;
  }

  /** Counts a bulk evaluation: one per result. */
  countAll(projectId: string, environment: string, results: readonly Counted[]): void {
    for (let i = 0; i < results.length; i++) this.count(projectId, environment, results[i] as Counted);
  }

  #rows(): EvaluationCount[] {
    const rows: EvaluationCount[] = [];
    const minute = this.#minute;
    for (const { projectId, environment, flags } of this.#scopes.values()) {
      for (const [flagKey, variants] of flags) {
        for (const [variant, byReason] of variants) {
          for (const reason in byReason) {
            const count = byReason[reason] as number;
            rows.push({ projectId, flagKey, environment, minute, variant, reason, count });
          }
        }
      }
    }
    return rows;
  }

  /** Takes every count so far, one row per flag, environment, minute, variant and reason. */
  drain(): EvaluationCount[] {
    const all = [...this.#waiting, ...this.#rows()];
    this.#waiting = [];
    this.#scopes = new Map();
    // A minute may appear twice (given back by a failed flush, then counted again): add them up.
    const merged = new Map<string, EvaluationCount>();
    for (const row of all) {
      const key = JSON.stringify([
        row.projectId,
        row.flagKey,
        row.environment,
        row.minute,
        row.variant,
        row.reason,
      ]);
      const earlier = merged.get(key);
      merged.set(key, earlier === undefined ? row : { ...row, count: earlier.count + row.count });
    }
    return [...merged.values()];
  }

  /** Gives back counts a flush could not write, so the next one carries them. */
  giveBack(rows: readonly EvaluationCount[]): void {
    this.#waiting.push(...rows);
  }
}
