import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import type { ScheduledChange, ScheduledChangeStatus } from '../../domain/scheduled-change.ts';
import type { FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { flagChanges } from '../core/field-changes.ts';
import { type Gated, type GateRoles, throughGate } from '../core/write-gate.ts';
import { environmentsChangedBy, type FlagService } from '../flags/flag-service.ts';

export interface ScheduleInput {
  readonly at: string;
  readonly environment: string;
  readonly patch: FlagPatch;
  readonly comment?: string | undefined;
}

/** Scheduling, listing and cancelling flag changes (docs/product.md §10); `ChangeScheduler` applies them. */
export class ScheduledChangeService {
  readonly #store: WithTransactions<GateRoles>;
  /** Checks each patch when it is scheduled; `ChangeScheduler` writes it through the same service. */
  readonly #flags: FlagService;
  readonly #clock: Clock;

  constructor(store: WithTransactions<GateRoles>, flags: FlagService, clock: Clock = systemClock) {
    this.#store = store;
    this.#flags = flags;
    this.#clock = clock;
  }

  /**
   * Refuses a patch the actor could not make now, or that would not validate now; then the gate:
   * scheduling a change to a guarded environment is itself what gets approved (a change request
   * of kind `flag.schedule`), and once approved the change runs at its time.
   */
  async schedule(actor: Actor, flagId: string, input: ScheduleInput): Promise<Gated<ScheduledChange>> {
    const { projectId, stored, next } = await this.#flags.preparePatch(
      actor,
      flagId,
      input.patch,
      input.environment,
    );
    const at = Date.parse(input.at);
    if (at <= this.#clock()) {
      throw validationFailed('A change can only be scheduled for the future.', [
        { path: '/at', message: 'must be later than now' },
      ]);
    }
    const changes = flagChanges(stored, next);
    const write = {
      kind: 'flag.schedule',
      projectId,
      flagId,
      environment: input.environment,
      environments: environmentsChangedBy(stored, changes),
      // The environment too: the request waits on a guarded one, which may not be the one scheduled.
      patch: {
        at: new Date(at).toISOString(),
        environment: input.environment,
        patch: input.patch,
        comment: input.comment ?? '',
      },
      changes,
      baseVersion: stored.version,
    } as const;
    return throughGate({ store: this.#store, clock: this.#clock }, actor, write, () =>
      this.#store.transaction((tx) => this.insert(tx, actor, stored, input)),
    );
  }

  /** Stores a pending change (checked by the caller) and audits it, in the caller's transaction. */
  async insert(tx: GateRoles, actor: Actor, flag: Flag, input: ScheduleInput): Promise<ScheduledChange> {
    const change: ScheduledChange = {
      id: newId('sch'),
      projectId: flag.projectId,
      flagId: flag.id,
      environment: input.environment,
      patch: input.patch,
      comment: input.comment ?? '',
      at: new Date(Date.parse(input.at)).toISOString(),
      status: 'pending',
      author: actor.principal,
      createdAt: new Date(this.#clock()).toISOString(),
      settledAt: null,
      failure: null,
    };
    await tx.pendingChanges.insert('schedule', change);
    await recordAudit(tx, actor, flag.projectId, {
      at: isoTime(this.#clock),
      action: 'flag.change_scheduled',
      resource: { type: 'flag', id: flag.id, key: flag.key },
      environment: input.environment,
      before: null,
      after: change,
    });
    return change;
  }

  async list(
    actor: Actor,
    flagId: string,
    status?: ScheduledChangeStatus,
  ): Promise<readonly ScheduledChange[]> {
    await this.#flags.getById(actor, flagId);
    return this.#store.pendingChanges.listSchedules(flagId, status);
  }

  async get(actor: Actor, flagId: string, id: string): Promise<ScheduledChange> {
    await this.#flags.getById(actor, flagId);
    const change = await this.#store.pendingChanges.find('schedule', id);
    if (change === undefined || change.flagId !== flagId) {
      throw notFound(`No scheduled change "${id}" of this flag.`);
    }
    return change;
  }

  /** Cancels a pending change: editors with access to what it would change. Applied or failed ones stay (409). */
  async cancel(actor: Actor, flagId: string, id: string): Promise<void> {
    const change = await this.get(actor, flagId, id);
    await this.#flags.checkAccess(actor, change.flagId, change.patch, change.environment);
    await this.#store.transaction(async (tx) => {
      const at = new Date(this.#clock()).toISOString();
      if (!(await tx.pendingChanges.settle(id, 'cancelled', at))) {
        const now = await tx.pendingChanges.find('schedule', id);
        throw conflict(
          `The scheduled change is ${now?.status ?? 'gone'}; only a pending one can be cancelled.`,
        );
      }
      await recordAudit(tx, actor, change.projectId, {
        at: isoTime(this.#clock),
        action: 'flag.scheduled_change_cancelled',
        resource: { type: 'flag', id: change.flagId, key: null },
        environment: change.environment,
        before: change,
        after: { ...change, status: 'cancelled', settledAt: at },
      });
    });
  }
}
