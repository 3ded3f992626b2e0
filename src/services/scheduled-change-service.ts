import { isoTime } from '../domain/clock.ts';
import { DomainError, notFound, validationFailed } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { ScheduledChange, ScheduledChangeStatus } from '../domain/scheduled-change.ts';
import type { FlagPatch } from '../domain/schemas/flag-input.ts';
import type { Actor } from './actor.ts';
import { refuseToSkipApprovals } from './approval-policy.ts';
import { recordAudit } from './audit.ts';
import { environmentsGatedBy } from './flag-service.ts';
import { PendingPatchService } from './pending-patch-service.ts';

export interface ScheduleInput {
  readonly at: string;
  readonly environment: string;
  readonly patch: FlagPatch;
  readonly comment?: string | undefined;
}

/** Scheduling, listing and cancelling flag changes (SPEC §10); `ChangeScheduler` applies them. */
export class ScheduledChangeService extends PendingPatchService {
  /** Refuses a patch the actor could not make now, or that would not validate now; applies it later as them. */
  async schedule(actor: Actor, flagId: string, input: ScheduleInput): Promise<ScheduledChange> {
    const flag = await this.flags.checkPatch(actor, flagId, input.patch, input.environment);
    const touched = environmentsGatedBy(input.patch, input.environment, flag);
    await refuseToSkipApprovals(this.store, actor.principal, flag.projectId, touched, 'A scheduled change');
    const at = Date.parse(input.at);
    if (at <= this.clock()) {
      throw validationFailed('A change can only be scheduled for the future.', [
        { path: '/at', message: 'must be later than now' },
      ]);
    }
    const change: ScheduledChange = {
      id: newId('sch'),
      projectId: flag.projectId,
      flagId,
      environment: input.environment,
      patch: input.patch,
      comment: input.comment ?? '',
      at: new Date(at).toISOString(),
      status: 'pending',
      author: actor.principal,
      createdAt: new Date(this.clock()).toISOString(),
      settledAt: null,
      failure: null,
    };
    await this.store.transaction(async (tx) => {
      await tx.scheduledChanges.insert(change);
      await recordAudit(tx, actor, flag.projectId, {
        at: isoTime(this.clock),
        action: 'flag.change_scheduled',
        resource: { type: 'flag', id: flagId, key: flag.key },
        environment: input.environment,
        before: null,
        after: change,
      });
    });
    return change;
  }

  async list(
    actor: Actor,
    flagId: string,
    status?: ScheduledChangeStatus,
  ): Promise<readonly ScheduledChange[]> {
    await this.flags.getById(actor, flagId);
    return this.store.scheduledChanges.listForFlag(flagId, status);
  }

  async get(actor: Actor, flagId: string, id: string): Promise<ScheduledChange> {
    await this.flags.getById(actor, flagId);
    const change = await this.store.scheduledChanges.find(id);
    if (change === undefined || change.flagId !== flagId) {
      throw notFound(`No scheduled change "${id}" of this flag.`);
    }
    return change;
  }

  /** Cancels a pending change: editors with access to what it would change. Applied or failed ones stay (409). */
  async cancel(actor: Actor, flagId: string, id: string): Promise<void> {
    const change = await this.get(actor, flagId, id);
    await this.flags.checkAccess(actor, change.flagId, change.patch, change.environment);
    await this.store.transaction(async (tx) => {
      const at = new Date(this.clock()).toISOString();
      if (!(await tx.scheduledChanges.settle(id, 'cancelled', at))) {
        const now = await tx.scheduledChanges.find(id);
        throw new DomainError(
          'conflict',
          `The scheduled change is ${now?.status ?? 'gone'}; only a pending one can be cancelled.`,
        );
      }
      await recordAudit(tx, actor, change.projectId, {
        at: isoTime(this.clock),
        action: 'flag.scheduled_change_cancelled',
        resource: { type: 'flag', id: change.flagId, key: null },
        environment: change.environment,
        before: change,
        after: { ...change, status: 'cancelled', settledAt: at },
      });
    });
  }
}
