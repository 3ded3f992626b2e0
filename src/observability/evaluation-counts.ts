import { type EvaluationObserver, PerEnvironment, type ServedIn } from '../domain/evaluation-observer.ts';
import type { EvaluationDetail, Reason } from '../domain/evaluation-result.ts';

/** Evaluations of one project in one environment, by reason. */
export type EvaluationTally = Record<Reason, number>;

/** One row of `EvaluationCounts.rows()`. */
export interface EvaluationCountRow {
  readonly projectId: string;
  readonly environment: string;
  readonly reason: Reason;
  readonly count: number;
}

/**
 * Evaluations served since the process started, by project id, environment key and reason.
 * Plain integers on the hot path (two map lookups and an increment); /metrics reads them when scraped.
 * No flag key and no user value is kept, so the number of rows grows only with projects × environments.
 */
export class EvaluationCounts implements EvaluationObserver {
  readonly #tallies = new PerEnvironment<EvaluationTally>(() => ({
    targeting: 0,
    split: 0,
    default: 0,
    disabled: 0,
    static: 0,
    prerequisite_failed: 0,
    error: 0,
  }));

  /** The tally of one project and environment, made on first use. */
  tally(projectId: string, environment: string): EvaluationTally {
    return this.#tallies.of(projectId, environment);
  }

  /** Counts one evaluation. */
  count(projectId: string, environment: string, reason: Reason): void {
    this.tally(projectId, environment)[reason]++;
  }

  /** Counts a bulk evaluation: one per result. */
  countAll(projectId: string, environment: string, results: readonly { readonly reason: Reason }[]): void {
    const tally = this.tally(projectId, environment);
    for (let i = 0; i < results.length; i++) tally[(results[i] as { reason: Reason }).reason]++;
  }

  served(where: ServedIn, result: EvaluationDetail): void {
    this.count(where.projectId, where.environment, result.reason);
  }

  servedAll(where: ServedIn, results: readonly EvaluationDetail[]): void {
    this.countAll(where.projectId, where.environment, results);
  }

  /** Every non-zero count. */
  rows(): EvaluationCountRow[] {
    const rows: EvaluationCountRow[] = [];
    for (const [projectId, environment, tally] of this.#tallies.entries()) {
      for (const reason of Object.keys(tally) as Reason[]) {
        if (tally[reason] > 0) rows.push({ projectId, environment, reason, count: tally[reason] });
      }
    }
    return rows;
  }
}
