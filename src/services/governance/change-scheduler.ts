import { systemClock } from '../../domain/clock.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  type ScheduledChange,
  ScheduledChangeHeld,
  ScheduledChangeSettled,
} from '../../domain/scheduled-change.ts';
import type { PendingChangeRole } from '../../storage/store.ts';
import { RepeatedPass } from '../core/repeated-pass.ts';
import type { ScheduledChangeService } from './scheduled-change-service.ts';

export interface SchedulerOptions {
  /** Milliseconds since the epoch; tests pass a clock they move. */
  readonly clock?: () => number;
  /** How often to look for due changes: well under docs/product.md §10's 1 s. */
  readonly intervalMs?: number;
  readonly log?: { warn(object: unknown, message: string): void };
}

/** What one pass did: ids of the changes this node applied, and of those it marked failed. */
export interface SchedulerPass {
  readonly applied: readonly string[];
  readonly failed: readonly string[];
}

const BATCH = 50;
/** Errors that say the patch cannot be applied as it stands: retrying would not help. */
const FINAL: ReadonlySet<string> = new Set(['validation_failed', 'not_found', 'flag_not_found', 'conflict']);

function reasonOf(error: DomainError): string {
  const fields = (error.errors ?? []).map((e) => `${e.path}: ${e.message}`);
  return fields.length === 0 ? error.message : `${error.message} ${fields.join('; ')}`;
}

/**
 * Applies due scheduled changes (docs/product.md §10) on every node. Exactly once across nodes: a change is
 * marked applied in the same transaction as its write, by an update that only a pending row
 * passes and that holds the row lock until commit (see PendingChangeStore.settle). A change due
 * while no node ran is applied by the first pass after start, its delay in the audit event.
 */
export class ChangeScheduler {
  readonly #store: PendingChangeRole;
  readonly #scheduled: ScheduledChangeService;
  readonly #clock: () => number;
  readonly #intervalMs: number;
  readonly #log: SchedulerOptions['log'];
  readonly #passes = new RepeatedPass(
    () => this.runDue(),
    (error) => this.#log?.warn({ err: error }, 'applying scheduled changes failed; retrying'),
  );

  constructor(store: PendingChangeRole, scheduled: ScheduledChangeService, options: SchedulerOptions = {}) {
    this.#store = store;
    this.#scheduled = scheduled;
    this.#clock = options.clock ?? systemClock;
    this.#intervalMs = options.intervalMs ?? 200;
    this.#log = options.log;
  }

  /** Runs a pass now, then every interval; passes never overlap. */
  start(): void {
    this.#passes.start(this.#intervalMs);
  }

  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void> {
    return this.#passes.stop();
  }

  /** Applies every change due by the clock's now; what another node settles first is skipped. */
  async runDue(): Promise<SchedulerPass> {
    const applied: string[] = [];
    const failed: string[] = [];
    const seen = new Set<string>();
    for (;;) {
      const due = (await this.#store.pendingChanges.due(new Date(this.#clock()).toISOString(), BATCH)).filter(
        (change) => !seen.has(change.id),
      );
      if (due.length === 0) break;
      for (const change of due) {
        seen.add(change.id);
        const outcome = await this.#apply(change);
        if (outcome === 'applied') applied.push(change.id);
        if (outcome === 'failed') failed.push(change.id);
      }
    }
    return { applied, failed };
  }

  async #apply(change: ScheduledChange): Promise<'applied' | 'failed' | 'skipped'> {
    try {
      const ran = await this.#scheduled.run(change, new Date(this.#clock()));
      // The gate kept it as a change request: it is settled failed, saying which.
      return 'request' in ran ? 'failed' : 'applied';
    } catch (error) {
      // Settled elsewhere, or a release step its guards hold (postponed, its plan saying why).
      if (error instanceof ScheduledChangeSettled || error instanceof ScheduledChangeHeld) return 'skipped';
      if (error instanceof DomainError && FINAL.has(error.code)) {
        const at = new Date(this.#clock()).toISOString();
        return (await this.#scheduled.markFailed(change, at, reasonOf(error))) ? 'failed' : 'skipped';
      }
      // A lost race with another writer of the flag, or the database away: the next pass retries.
      this.#log?.warn({ err: error, scheduledChange: change.id }, 'scheduled change not applied yet');
      return 'skipped';
    }
  }
}
