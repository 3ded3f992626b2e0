import { type EvaluationObserver, PerEnvironment, type ServedIn } from '../domain/evaluation-observer.ts';
import type { EvaluationCount } from '../storage/insights-store.ts';
import { MS_PER_MINUTE } from './minutes.ts';

/** What the counter needs of an evaluation result. */
export interface Counted {
  readonly key: string;
  readonly variant: string | null;
  readonly reason: string;
}

/** Counts of one flag by variant, then by reason. */
type FlagCounts = Map<string | null, Record<string, number>>;

/** The counts of one project and environment in the current minute, by flag key. */
type ScopeCounts = Map<string, FlagCounts>;

const newMinute = () => new PerEnvironment<ScopeCounts>(() => new Map());

function add(flags: ScopeCounts, result: Counted): void {
  let flag = flags.get(result.key);
  if (flag === undefined) {
    flag = new Map();
    flags.set(result.key, flag);
  }
  let byReason = flag.get(result.variant);
  if (byReason === undefined) {
    byReason = {};
    flag.set(result.variant, byReason);
  }
  byReason[result.reason] = (byReason[result.reason] ?? 0) + 1;
}

/**
 * Counts evaluations per flag, environment, variant, reason and minute in memory (docs/product.md §10).
 * The hot path does a few map lookups and an increment; `drain` hands the counts to the flush,
 * which writes them off the request path.
 */
export class EvaluationCounter implements EvaluationObserver {
  #minute = Number.NaN;
  /** The current minute's counts; replaced when the minute turns. */
  #scopes = newMinute();
  /** Finished minutes and counts a failed flush gave back, waiting for the next drain. */
  #waiting: EvaluationCount[] = [];

  /** The counts of one project and environment in the current minute, made on first use. */
  #scope(projectId: string, environment: string, nowMs: number): ScopeCounts {
    const minute = Math.floor(nowMs / MS_PER_MINUTE);
    if (minute !== this.#minute) {
      this.#waiting.push(...this.#rows());
      this.#scopes = newMinute();
      this.#minute = minute;
    }
    return this.#scopes.of(projectId, environment);
  }

  /** Counts one evaluation made at `nowMs` (the evaluator's own clock reading). */
  count(projectId: string, environment: string, result: Counted, nowMs: number): void {
    add(this.#scope(projectId, environment, nowMs), result);
  }

  /** Counts a bulk evaluation: one per result, with one scope lookup. */
  countAll(projectId: string, environment: string, results: readonly Counted[], nowMs: number): void {
    const flags = this.#scope(projectId, environment, nowMs);
    for (let i = 0; i < results.length; i++) add(flags, results[i] as Counted);
  }

  served(where: ServedIn, result: Counted, nowMs: number): void {
    this.count(where.projectId, where.environment, result, nowMs);
  }

  servedAll(where: ServedIn, results: readonly Counted[], nowMs: number): void {
    this.countAll(where.projectId, where.environment, results, nowMs);
  }

  #rows(): EvaluationCount[] {
    const rows: EvaluationCount[] = [];
    const minute = this.#minute;
    for (const [projectId, environment, flags] of this.#scopes.entries()) {
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
    this.#scopes = newMinute();
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
