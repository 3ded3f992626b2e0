import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import {
  type ScheduledChange,
  ScheduledChangeHeld,
  ScheduledChangeSettled,
  type ScheduledChangeStatus,
} from '../../domain/scheduled-change.ts';
import type { FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { SnapshotRegistry } from '../../plane/snapshots.ts';
import type { WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import type { Gated, GateRoles } from '../core/write-gate.ts';
import { runWrite } from '../core/write-pipeline.ts';
import { environmentsChangedBy, type FlagRoles } from '../flags/flag-kind.ts';
import type { FlagService } from '../flags/flag-service.ts';
import type { FlagWrites } from '../flags/flag-writes.ts';
import { type AuthorRoles, authorNow } from './author-standing.ts';

export interface ScheduleInput {
  readonly at: string;
  readonly environment: string;
  readonly patch: FlagPatch;
  readonly comment?: string | undefined;
  /** The change request that approved it (the request's apply inserts it). */
  readonly approvedBy?: string | undefined;
}

/** What scheduling reads and writes: flags and the gate's roles (for the pipeline), and authors. */
export type ScheduleRoles = FlagRoles & AuthorRoles;

/** What a scheduled change's run came to. */
export type ScheduledRun = Gated<Flag>;

/**
 * The release plans' side of the changes that are their steps (services/releases): the
 * scheduler runs a step like any scheduled change, and the plan moves on in the same transaction.
 */
export interface PlanSteps {
  /** Who a step is written as: the plan itself. */
  actorOf(change: ScheduledChange): Actor;
  /**
   * In the step's transaction, before its write: checks that the plan still waits on this step
   * and that its guards let it go, and moves the plan on; answers the audit event's details.
   * Throws ScheduledChangeHeld to hold it (nothing is written), ScheduledChangeSettled when the
   * plan no longer waits on it.
   */
  advance(tx: FlagRoles, change: ScheduledChange, at: Date): Promise<Readonly<Record<string, unknown>>>;
  /** A held step waits until `held.retryAt`, and its plan says why. */
  hold(change: ScheduledChange, held: ScheduledChangeHeld): Promise<void>;
}

/**
 * Scheduling, listing and cancelling flag changes (docs/product.md §10), and running them when
 * due (`ChangeScheduler` calls `run`). Both pass the gate: scheduling a change to a guarded
 * environment is itself what gets approved (a change request of kind `flag.schedule`); and a
 * change that was not approved so passes it again when it runs (decision 1852).
 */
export class ScheduledChangeService {
  readonly #store: WithTransactions<ScheduleRoles>;
  readonly #flags: FlagService;
  readonly #writes: FlagWrites;
  readonly #snapshots: SnapshotRegistry;
  readonly #clock: Clock;

  readonly #steps: PlanSteps | undefined;

  constructor(
    deps: { store: WithTransactions<ScheduleRoles>; snapshots: SnapshotRegistry; clock?: Clock },
    flags: FlagService,
    writes: FlagWrites,
    steps?: PlanSteps,
  ) {
    this.#store = deps.store;
    this.#snapshots = deps.snapshots;
    this.#flags = flags;
    this.#writes = writes;
    this.#clock = deps.clock ?? systemClock;
    this.#steps = steps;
  }

  /** Refuses a patch the actor could not make now, or that would not validate now; then the gate. */
  async schedule(actor: Actor, flagId: string, input: ScheduleInput): Promise<Gated<ScheduledChange>> {
    const at = Date.parse(input.at);
    if (at <= this.#clock()) {
      throw validationFailed('A change can only be scheduled for the future.', [
        { path: '/at', message: 'must be later than now' },
      ]);
    }
    const deps = { store: this.#store, snapshots: this.#snapshots, clock: this.#clock };
    return runWrite(deps, actor, {
      prepare: (tx) => this.#writes.preparePatch(tx, actor, flagId, input.patch, input.environment),
      gated: ({ stored, changes }) => ({
        kind: 'flag.schedule',
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
      }),
      apply: (tx, { stored }) => this.insert(tx, actor, stored, input),
    });
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
      ...(input.approvedBy === undefined ? {} : { approvedBy: input.approvedBy }),
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

  /**
   * Runs a due change as its author stands now (a revoked key or deactivated account refuses it,
   * 409), through the pipeline: applied and marked applied in one transaction, or — when it now
   * reaches a guarded environment and was not approved — a change request in its author's name,
   * and the change marked failed saying so. Throws `ScheduledChangeSettled` when another node
   * (or a cancel) settled it first; nothing is written then.
   */
  async run(change: ScheduledChange, appliedAt: Date): Promise<ScheduledRun> {
    if (change.releaseStep !== undefined && this.#steps !== undefined) {
      return this.#runStep(this.#steps, change, appliedAt);
    }
    const principal = (await authorNow(this.#store, change.author, appliedAt.getTime())) ?? change.author;
    const actor = { principal, requestId: `scheduled-change:${change.id}` };
    const settle = async (tx: GateRoles, status: 'applied' | 'failed', failure?: string) => {
      if (!(await tx.pendingChanges.settle(change.id, status, appliedAt.toISOString(), failure))) {
        throw new ScheduledChangeSettled(change.id);
      }
    };
    return this.#writes.patch(actor, change.flagId, change.patch, change.environment, {
      approval: change.approvedBy === undefined ? 'gate' : 'approved',
      claim: async (_, tx) => {
        await settle(tx, 'applied');
        return {
          scheduledChange: change.id,
          scheduledAt: change.at,
          delayMs: appliedAt.getTime() - Date.parse(change.at),
        };
      },
      requested: async (tx, request) => {
        const reason = `It now changes ${request.environments.join(', ')}, which require approvals: change request ${request.id} waits for them.`;
        await settle(tx, 'failed', reason);
        await this.#auditFailed(tx, change, appliedAt.toISOString(), reason);
      },
    });
  }

  /**
   * A release plan's step: written as the plan, approved when the plan started (SPEC §13), the
   * plan moved on in the same transaction; a step its guards hold waits, postponed.
   */
  async #runStep(steps: PlanSteps, change: ScheduledChange, appliedAt: Date): Promise<ScheduledRun> {
    try {
      return await this.#writes.patch(
        steps.actorOf(change),
        change.flagId,
        change.patch,
        change.environment,
        {
          approval: 'approved',
          authorised: true,
          claim: async (_, tx) => {
            if (!(await tx.pendingChanges.settle(change.id, 'applied', appliedAt.toISOString()))) {
              throw new ScheduledChangeSettled(change.id);
            }
            const details = await steps.advance(tx, change, appliedAt);
            return { scheduledChange: change.id, scheduledAt: change.at, ...details };
          },
        },
      );
    } catch (error) {
      if (error instanceof ScheduledChangeHeld) await steps.hold(change, error);
      throw error;
    }
  }

  /** Records, in the caller's transaction, that the change was settled as failed and why. */
  async #auditFailed(
    tx: GateRoles,
    change: ScheduledChange,
    settledAt: string,
    reason: string,
  ): Promise<void> {
    await recordAudit(
      tx,
      { principal: change.author, requestId: `scheduled-change:${change.id}` },
      change.projectId,
      {
        at: isoTime(this.#clock),
        action: 'flag.scheduled_change_failed',
        resource: { type: 'flag', id: change.flagId, key: null },
        environment: change.environment,
        before: change,
        after: { ...change, status: 'failed', settledAt, failure: reason },
        details: { scheduledChange: change.id, reason },
      },
    );
  }

  /** Marks a due change failed, with why, unless another node settled it first (then false). */
  async markFailed(change: ScheduledChange, at: string, reason: string): Promise<boolean> {
    return this.#store.transaction(async (tx) => {
      if (!(await tx.pendingChanges.settle(change.id, 'failed', at, reason))) return false;
      await this.#auditFailed(tx, change, at, reason);
      return true;
    });
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
    if (change.releaseStep !== undefined) {
      throw conflict('This is a step of a release plan: pause, roll back or delete the plan instead.');
    }
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
