import { authorize, authorizeEnvironments } from '../../access/access-rules.ts';
import {
  type ChangeRequest,
  type ChangeRequestStatus,
  type FieldChange,
  personOf,
  samePerson,
} from '../../domain/change-request.ts';
import type { Clock } from '../../domain/clock.ts';
import { conflict, DomainError, forbidden, notFound } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import type { FlagPatch } from '../../domain/schemas/flag-input.ts';
import type {
  ExperimentRole,
  Page,
  PageRequest,
  PendingChangeRole,
  WithTransactions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { environmentsOfChanges, StaleChanges, staleChanges } from '../core/field-changes.ts';
import { accessProject } from '../core/project-access.ts';
import { type AuditRoles, changedMeanwhile, writeVersioned } from '../core/versioned-write.ts';
import { CHANGE_REQUESTS, conflictWith } from '../core/write-gate.ts';
import type { FlagRoles } from '../flags/flag-kind.ts';
import type { FlagWrites } from '../flags/flag-writes.ts';
import type { FlagdWrites } from '../flags/flagd-writes.ts';
import { accessScope, patchReach } from '../flags/patch-reach.ts';
import type { SegmentWrites } from '../flags/segment-writes.ts';
import type { ExperimentService } from '../measurement/experiment-service.ts';
import { type AuthorRoles, authorNow } from './author-standing.ts';
import type { ScheduledChangeService } from './scheduled-change-service.ts';

/** What writing a change request itself needs: any write's transaction has it (a flag's, an experiment's). */
type RequestRoles = PendingChangeRole & AuditRoles;
/** The environments a flag's changes reach: those they configure, every one for a flag-wide field. */
const scopeOfChanges = (changes: readonly FieldChange[]): readonly string[] | 'all' =>
  changes.every((change) => change.path.startsWith('/environments/'))
    ? environmentsOfChanges(changes)
    : 'all';

/**
 * The pipelines that write an approved request, each for its kinds: approved, with the rights
 * checked here when the request is decided. services.ts hands them over; no route receives them.
 */
export interface RequestWriters {
  readonly flags: FlagWrites;
  readonly segments: SegmentWrites;
  readonly flagd: FlagdWrites;
  readonly scheduledChanges: ScheduledChangeService;
  readonly experiments: ExperimentService;
  readonly releases: ReleaseStarts;
}

/** Starting a release plan whose `release.start` request was approved (services/releases implements it). */
export interface ReleaseStarts {
  startApproved(
    actor: Actor,
    request: ChangeRequest,
    claim: (tx: RequestRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void>;
}

/** Starting and stopping an experiment: requests about an experiment, not a flag or segment. */
const isExperimentKind = (kind: ChangeRequest['kind']) =>
  kind === 'experiment.start' || kind === 'experiment.stop';

/** The experiment a start or stop request names (its patch: `{ experiment: key }`). */
const experimentKeyOf = (request: ChangeRequest): string => String(request.patch.experiment);

/** A write of an approved request: its rights and approvals decided here, marked applied by `claim`. */
const approved = <C>(claim: C) => ({ approval: 'approved', authorised: true, claim }) as const;

/**
 * Change requests (docs/decisions/1003-approvals.md, 1700-one-gate.md): made by the gate instead
 * of a write, approved by others, applied once — only what their author changed, over the
 * resource as it is then.
 */
export class ChangeRequestService {
  readonly #store: WithTransactions<FlagRoles> & AuthorRoles & ExperimentRole;
  readonly #writers: RequestWriters;
  readonly #clock: Clock;

  constructor(
    store: WithTransactions<FlagRoles> & AuthorRoles & ExperimentRole,
    writers: RequestWriters,
    clock: Clock,
  ) {
    this.#store = store;
    this.#writers = writers;
    this.#clock = clock;
  }

  async list(
    actor: Actor,
    projectIdOrKey: string,
    filter: { readonly status?: ChangeRequestStatus | undefined; readonly flagId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<ChangeRequest>> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#store.pendingChanges.listRequests(project.id, filter, page);
  }

  async get(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.#store.pendingChanges.find('request', id);
    if (request === undefined) throw notFound(`No change request with id "${id}".`);
    authorize(actor.principal, request.projectId, 'viewer');
    return request;
  }

  /** Approves another's open request; at the required count it is applied. */
  async approve(actor: Actor, id: string, comment: string): Promise<ChangeRequest> {
    const request = await this.#decidable(actor, id);
    const me = personOf(actor.principal);
    if (samePerson(request.author, me)) throw forbidden('Nobody approves their own change request.');
    if (request.approvals.some((approval) => samePerson(approval.by, me))) {
      throw conflict('You have already approved this change request.');
    }
    await this.#refuseIfConflicted(actor, request);
    const approved = await this.#update(actor, request, 'change_request.approved', {
      approvals: [...request.approvals, { by: me, at: this.#now(), comment }],
    });
    if (approved.approvals.length < approved.requiredApprovals) return approved;
    return this.#apply(actor, approved);
  }

  async reject(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.get(actor, id);
    this.#checkRights(actor, request);
    this.#requireUndecided(request);
    if (samePerson(request.author, personOf(actor.principal))) {
      throw forbidden('Withdraw your own change request instead of rejecting it.');
    }
    return this.#update(actor, request, 'change_request.rejected', {
      status: 'rejected',
      decidedBy: personOf(actor.principal),
    });
  }

  /** The author (or an admin) takes an open or conflicted request back. */
  async withdraw(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.get(actor, id);
    this.#requireUndecided(request);
    if (!samePerson(request.author, personOf(actor.principal))) {
      if (actor.principal.role !== 'admin')
        throw forbidden('Only the author or an admin withdraws a change request.');
      this.#checkRights(actor, request);
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
    await this.#refuseIfConflicted(actor, request);
    return this.#apply(actor, request);
  }

  /**
   * Writes what the request changes and marks it applied, in one transaction. A field written by
   * someone else since marks it conflicted (409); any other refusal (the flag no longer
   * validates, a segment still in use) leaves it open with `failure` saying why.
   */
  async #apply(actor: Actor, request: ChangeRequest): Promise<ChangeRequest> {
    await this.#refuseIfAuthorGone(actor, request);
    let applied: ChangeRequest | undefined;
    const claim = async (tx: RequestRoles) => {
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
    };
    try {
      await this.#writeRequest(actor, request, claim);
    } catch (error) {
      if (error instanceof StaleChanges) {
        await this.#markConflicted(actor, request, error.reason);
      } else if (error instanceof DomainError && error.code !== 'precondition_failed') {
        await this.#update(actor, request, 'change_request.apply_failed', { failure: error.message });
      }
      throw error;
    }
    return applied as ChangeRequest;
  }

  /** Hands the request to the service that writes its kind. */
  async #writeRequest(
    actor: Actor,
    request: ChangeRequest,
    claim: (tx: RequestRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void> {
    const { flags, segments, flagd } = this.#writers;
    const flagId = request.flagId as string;
    const segmentId = request.segmentId as string;
    const applyClaim = (_: unknown, tx: FlagRoles) => claim(tx);
    switch (request.kind) {
      case 'flag.patch':
        if (request.legacy === true) await this.#writeLegacyPatch(actor, request, claim);
        else await flags.applyChanges(actor, flagId, request.changes, 'flag.updated', approved(applyClaim));
        return;
      case 'flag.restore':
        await flags.applyChanges(actor, flagId, request.changes, 'flag.restored', approved(applyClaim));
        return;
      case 'flag.delete':
        await flags.delete(actor, flagId, approved(applyClaim));
        return;
      case 'flag.schedule':
        await this.#schedule(actor, request, claim);
        return;
      case 'segment.patch':
        await segments.applyChanges(actor, segmentId, request.changes, approved(claim));
        return;
      case 'segment.delete':
        await segments.delete(actor, segmentId, approved(claim));
        return;
      case 'flagd.import':
        await flagd.import(actor, request.projectId, request.environment, request.patch, {
          ...approved(claim),
          changes: request.changes,
        });
        return;
      case 'experiment.start':
      case 'experiment.stop': {
        const run = request.kind === 'experiment.start' ? 'start' : 'stop';
        await this.#writers.experiments[run](
          actor,
          request.projectId,
          experimentKeyOf(request),
          approved(claim),
        );
        return;
      }
      case 'release.start':
        // Approved once: the plan's first milestone now, its later steps as the plan (SPEC §13).
        await this.#writers.releases.startApproved(actor, request, claim);
        return;
    }
  }

  /** A flag patch made before changes were recorded: applied only onto the version it was made against. */
  async #writeLegacyPatch(
    actor: Actor,
    request: ChangeRequest,
    claim: (tx: RequestRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void> {
    await this.#writers.flags.patch(
      actor,
      request.flagId as string,
      request.patch as FlagPatch,
      request.environment,
      approved((flag: Flag, tx: FlagRoles) => {
        if (flag.version !== request.baseVersion)
          throw new StaleChanges(
            `the flag changed since (version ${request.baseVersion}, now ${flag.version})`,
          );
        return claim(tx);
      }),
    );
  }

  /** An approved schedule: stored to run at its time as approved, if what it was based on still holds. */
  async #schedule(
    actor: Actor,
    request: ChangeRequest,
    claim: (tx: RequestRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void> {
    const { at, environment, patch, comment } = request.patch as {
      at: string;
      environment: string;
      patch: FlagPatch;
      comment: string;
    };
    await this.#store.transaction(async (tx) => {
      const flag = await tx.findFlagById(request.flagId as string, { forUpdate: true });
      if (flag === undefined) throw new StaleChanges('the flag was deleted');
      const stale = staleChanges(request.changes, flag);
      if (stale.length > 0)
        throw new StaleChanges(`${stale.map((c) => c.path).join(', ')} changed since it was made`);
      await claim(tx);
      await this.#writers.scheduledChanges.insert(tx, actor, flag, {
        at,
        environment,
        patch,
        comment: comment === '' ? `Change request ${request.id}` : comment,
        approvedBy: request.id,
      });
    });
  }

  /**
   * A request runs only while its author could still make it (decision 1852): one whose key was
   * revoked or expired, or whose account was deactivated or deleted, is closed (withdrawn, with
   * why, audited) instead of applied, and the apply answers 409 saying so.
   */
  async #refuseIfAuthorGone(actor: Actor, request: ChangeRequest): Promise<void> {
    try {
      await authorNow(this.#store, request.author, this.#clock(), 'as-they-were');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.#update(actor, request, 'change_request.withdrawn', {
        status: 'withdrawn',
        failure: error.message,
      });
      throw error;
    }
  }

  /** Marks the request conflicted and refuses (409) when its base no longer holds now. */
  async #refuseIfConflicted(actor: Actor, request: ChangeRequest): Promise<void> {
    const reason = await this.#conflictNow(request);
    if (reason === undefined) return;
    await this.#markConflicted(actor, request, reason);
    throw new StaleChanges(reason);
  }

  /** Why the request's base no longer holds in the stored flag or segment, if it does not. */
  async #conflictNow(request: ChangeRequest): Promise<string | undefined> {
    if (isExperimentKind(request.kind)) return this.#experimentConflict(request);
    if (request.kind === 'flagd.import') {
      const keys = [...new Set(request.changes.map((c) => c.path.split('/')[1] as string))];
      const stored = await this.#store.flagsByKeys(request.projectId, keys);
      for (const flag of stored) {
        const reason = conflictWith(request, { flag });
        if (reason !== undefined) return reason;
      }
      const missing = request.changes.filter(
        (c) => c.before !== null && !stored.some((f) => c.path.startsWith(`/${f.key}/`)),
      );
      return missing.length > 0 ? 'A flag it changes was deleted' : undefined;
    }
    if (request.segmentId !== null) {
      const segment = await this.#store.findSegmentById(request.segmentId);
      return conflictWith(
        request,
        segment === undefined ? { segment: { id: request.segmentId }, gone: true } : { segment },
      );
    }
    const flag: Flag | undefined = await this.#store.findFlagById(request.flagId as string);
    if (flag === undefined)
      return conflictWith(request, { flag: { id: request.flagId as string, key: '' }, gone: true });
    if (request.kind === 'flag.delete') return undefined;
    return conflictWith(request, { flag });
  }

  /** A start or stop no longer applies once the experiment left the status it was asked in. */
  async #experimentConflict(request: ChangeRequest): Promise<string | undefined> {
    const key = experimentKeyOf(request);
    const experiment = await this.#store.experiments.findByKey(request.projectId, key);
    if (experiment === undefined) return `The experiment "${key}" was deleted`;
    const before = request.changes[0]?.before;
    return experiment.status === before ? undefined : `The experiment "${key}" is ${experiment.status} now`;
  }

  async #markConflicted(actor: Actor, request: ChangeRequest, reason: string): Promise<void> {
    await this.#update(actor, request, 'change_request.conflicted', {
      status: 'conflicted',
      conflict: `${reason}.`,
    });
  }

  /** An open request the actor may decide on: editor rights over what it would change. */
  async #decidable(actor: Actor, id: string): Promise<ChangeRequest> {
    const request = await this.get(actor, id);
    this.#checkRights(actor, request);
    if (request.status === 'conflicted') {
      throw conflict(
        `The change request is conflicted: ${request.conflict ?? 'its base changed'} Withdraw it and request the change again.`,
      );
    }
    this.#requireUndecided(request);
    return request;
  }

  /** Editor rights in the project over every environment the request's write reaches. */
  #checkRights(actor: Actor, request: ChangeRequest): void {
    authorize(actor.principal, request.projectId, 'editor');
    const { principal } = actor;
    if (request.kind === 'flag.patch' && request.legacy === true) {
      authorizeEnvironments(principal, accessScope(patchReach(request.patch, request.environment)));
    } else if (request.kind === 'flag.patch' || request.kind === 'flag.schedule') {
      authorizeEnvironments(principal, scopeOfChanges(request.changes));
    } else if (
      request.kind === 'flagd.import' ||
      request.kind === 'release.start' ||
      isExperimentKind(request.kind)
    ) {
      authorizeEnvironments(principal, request.environments);
    } else {
      // Deletes, restores and segment changes reach every environment.
      authorizeEnvironments(principal, 'all');
    }
  }

  #requireUndecided(request: ChangeRequest): void {
    if (request.status !== 'open' && request.status !== 'conflicted')
      throw conflict(`The change request is ${request.status}.`);
  }

  #update(
    actor: Actor,
    request: ChangeRequest,
    action: string,
    changes: Partial<ChangeRequest>,
  ): Promise<ChangeRequest> {
    return this.#store.transaction((tx) => this.#write(tx, actor, request, action, changes));
  }

  #write(
    tx: RequestRoles,
    actor: Actor,
    request: ChangeRequest,
    action: string,
    changes: Partial<ChangeRequest>,
  ): Promise<ChangeRequest> {
    return writeVersioned(tx, actor, this.#clock, CHANGE_REQUESTS, {
      load: async () => {
        // Read again: a write may have marked it conflicted since (markConflicts, in that write's transaction).
        const stored = (await tx.pendingChanges.find('request', request.id)) ?? request;
        if (stored.version !== request.version) {
          if (stored.status === 'conflicted')
            throw new StaleChanges((stored.conflict ?? 'its base changed').replace(/\.$/, ''));
          throw changedMeanwhile('change request');
        }
        return request;
      },
      change: async (stored) => ({
        next: { ...stored, ...changes, version: stored.version + 1, updatedAt: this.#now() },
        action,
        environment: stored.environment,
      }),
    });
  }

  #now(): string {
    return new Date(this.#clock()).toISOString();
  }
}
