import {
  type ChangeRequest,
  type ChangeRequestStatus,
  personOf,
  samePerson,
} from '../domain/change-request.ts';
import { isoTime } from '../domain/clock.ts';
import { conflict, DomainError, notFound } from '../domain/errors.ts';
import type { Flag } from '../domain/flag.ts';
import { newId } from '../domain/ids.ts';
import { DEFAULT_ENVIRONMENT } from '../domain/project.ts';
import type { FlagPatch } from '../domain/schemas/flag-input.ts';
import type { Page, PageRequest, StoreRoles } from '../storage/store.ts';
import { authorize } from './access.ts';
import type { Actor } from './actor.ts';
import { approvalsNeeded } from './approval-policy.ts';
import { recordAudit } from './audit.ts';
import { environmentsGatedBy } from './flag-service.ts';
import { PendingPatchService } from './pending-patch-service.ts';
import { accessProject } from './project-access.ts';
import { changedMeanwhile, checkIfMatch } from './versioned-write.ts';

const forbidden = (detail: string) => new DomainError('forbidden', detail);

/** Change requests (SPEC §10): made instead of a write, approved by others, applied once. */
export class ChangeRequestService extends PendingPatchService {
  /**
   * `PATCH /v1/flags/{flagId}`: written at once, or — when a non-admin changes an environment
   * that requires approvals — checked as if written and kept as an open change request.
   */
  async patchOrRequest(
    actor: Actor,
    flagId: string,
    patch: FlagPatch,
    options: { environment?: string | undefined; ifMatch?: number | undefined },
  ): Promise<{ readonly flag: Flag } | { readonly request: ChangeRequest }> {
    const environment = options.environment ?? DEFAULT_ENVIRONMENT;
    const current = await this.flags.getById(actor, flagId);
    const touched = environmentsGatedBy(patch, environment, current);
    const required = await approvalsNeeded(this.store, actor.principal, current.projectId, touched);
    if (required === 0) return { flag: await this.flags.patch(actor, flagId, patch, options) };
    const flag = await this.flags.checkPatch(actor, flagId, patch, environment);
    checkIfMatch(options.ifMatch, flag.version);
    const at = this.#now();
    const request: ChangeRequest = {
      id: newId('chr'),
      projectId: flag.projectId,
      flagId,
      environment,
      patch,
      comment: '',
      baseVersion: flag.version,
      requiredApprovals: required,
      author: personOf(actor.principal),
      status: 'open',
      approvals: [],
      decidedBy: null,
      failure: null,
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    await this.store.transaction(async (tx) => {
      await tx.approvals.insertChangeRequest(request);
      await this.#audit(tx, actor, 'change_request.created', null, request);
    });
    return { request };
  }

  async list(
    actor: Actor,
    projectIdOrKey: string,
    filter: { readonly status?: ChangeRequestStatus | undefined; readonly flagId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<ChangeRequest>> {
    const project = await accessProject(this.store, actor, projectIdOrKey, 'viewer');
    return this.store.approvals.listChangeRequests(project.id, filter, page);
  }

  async get(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.store.approvals.findChangeRequest(id);
    if (request === undefined) throw notFound(`No change request with id "${id}".`);
    authorize(actor.principal, request.projectId, 'viewer');
    return request;
  }

  /** Approves another's open request; at the required count it is applied, unless the flag changed since. */
  async approve(actor: Actor, id: string, comment: string): Promise<ChangeRequest> {
    const request = await this.#decidable(actor, id);
    const me = personOf(actor.principal);
    if (samePerson(request.author, me)) throw forbidden('Nobody approves their own change request.');
    if (request.approvals.some((approval) => samePerson(approval.by, me))) {
      throw conflict('You have already approved this change request.');
    }
    const approved = await this.#update(actor, request, 'change_request.approved', {
      approvals: [...request.approvals, { by: me, at: this.#now(), comment }],
    });
    if (approved.approvals.length < approved.requiredApprovals) return approved;
    try {
      return await this.#apply(actor, approved);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'precondition_failed') throw error;
      // Stale: the approval stands, the write does not happen, and the request says why.
      return this.#update(actor, approved, 'change_request.apply_failed', { failure: error.message });
    }
  }

  async reject(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.#decidable(actor, id);
    if (samePerson(request.author, personOf(actor.principal))) {
      throw forbidden('Withdraw your own change request instead of rejecting it.');
    }
    return this.#update(actor, request, 'change_request.rejected', {
      status: 'rejected',
      decidedBy: personOf(actor.principal),
    });
  }

  /** The author (or an admin) takes an open request back. */
  async withdraw(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.get(actor, id);
    this.#requireOpen(request);
    if (!samePerson(request.author, personOf(actor.principal))) {
      if (actor.principal.role !== 'admin')
        throw forbidden('Only the author or an admin withdraws a change request.');
      await this.flags.checkAccess(actor, request.flagId, request.patch, request.environment);
    }
    return this.#update(actor, request, 'change_request.withdrawn', {
      status: 'withdrawn',
      decidedBy: personOf(actor.principal),
    });
  }

  /** Applies a fully approved request; admins may apply one without its approvals (audited as such). */
  async apply(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.#decidable(actor, id);
    const short = request.requiredApprovals - request.approvals.length;
    if (short > 0 && actor.principal.role !== 'admin') {
      throw forbidden(
        `This change request needs ${short} more approval${short === 1 ? '' : 's'}, or an admin.`,
      );
    }
    return this.#apply(actor, request);
  }

  /** Writes the patch and marks the request applied in one transaction, only onto the version it was made against. */
  async #apply(actor: Actor, request: ChangeRequest): Promise<ChangeRequest> {
    let applied: ChangeRequest | undefined;
    await this.flags.applyOnBehalf(
      actor,
      request.flagId,
      request.patch,
      request.environment,
      async (flag, tx) => {
        if (flag.version !== request.baseVersion) {
          throw new DomainError(
            'precondition_failed',
            `The flag changed since this change request was made (version ${request.baseVersion}, now ${flag.version}); withdraw it and request the change again.`,
          );
        }
        applied = await this.#write(tx, actor, request, 'change_request.applied', {
          status: 'applied',
          decidedBy: personOf(actor.principal),
          failure: null,
        });
        const bypassed = Math.max(0, request.requiredApprovals - request.approvals.length);
        return {
          changeRequest: request.id,
          author: request.author,
          approvedBy: request.approvals.map((approval) => approval.by),
          ...(bypassed > 0 ? { approvalsBypassed: bypassed } : {}),
        };
      },
    );
    return applied as ChangeRequest;
  }

  /** An open request the actor may decide on: editor rights over what it would change. */
  async #decidable(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.get(actor, id);
    await this.flags.checkAccess(actor, request.flagId, request.patch, request.environment);
    this.#requireOpen(request);
    return request;
  }

  #requireOpen(request: ChangeRequest): void {
    if (request.status !== 'open') throw conflict(`The change request is ${request.status}.`);
  }

  #update(
    actor: Actor,
    request: ChangeRequest,
    action: string,
    changes: Partial<ChangeRequest>,
  ): Promise<ChangeRequest> {
    return this.store.transaction((tx) => this.#write(tx, actor, request, action, changes));
  }

  async #write(
    tx: StoreRoles,
    actor: Actor,
    request: ChangeRequest,
    action: string,
    changes: Partial<ChangeRequest>,
  ): Promise<ChangeRequest> {
    const next: ChangeRequest = {
      ...request,
      ...changes,
      version: request.version + 1,
      updatedAt: this.#now(),
    };
    if (!(await tx.approvals.updateChangeRequest(next, request.version)))
      throw changedMeanwhile('change request');
    await this.#audit(tx, actor, action, request, next);
    return next;
  }

  #audit(tx: StoreRoles, actor: Actor, action: string, before: ChangeRequest | null, after: ChangeRequest) {
    return recordAudit(tx, actor, after.projectId, {
      at: isoTime(this.clock),
      action,
      resource: { type: 'change_request', id: after.id, key: null },
      environment: after.environment,
      before,
      after,
    });
  }

  #now(): string {
    return new Date(this.clock()).toISOString();
  }
}
