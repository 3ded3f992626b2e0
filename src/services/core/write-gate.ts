import type { ChangeRequest, ChangeRequestKind, FieldChange } from '../../domain/change-request.ts';
import { personOf } from '../../domain/change-request.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { newId } from '../../domain/ids.ts';
import type { PendingChangeRole, ProjectStore } from '../../storage/store.ts';
import type { Actor } from './actor.ts';
import { recordAudit } from './audit.ts';
import { staleChanges } from './field-changes.ts';
import { type AuditRoles, type VersionedKind, writeVersioned } from './versioned-write.ts';

/** A write as the gate sees it: what it is, where it reaches, and exactly what it changes. */
export interface GatedWrite {
  readonly kind: ChangeRequestKind;
  readonly projectId: string;
  readonly flagId?: string | null;
  readonly segmentId?: string | null;
  /** The environment the write names, if any: the request waits on it when it is guarded. */
  readonly environment?: string | undefined;
  /** Every environment whose evaluation the write changes. */
  readonly environments: readonly string[];
  readonly patch: Readonly<Record<string, unknown>>;
  readonly changes: readonly FieldChange[];
  /** The flag's version (or the segment's) the changes were computed against. */
  readonly baseVersion: number;
}

/** Change requests as the one versioned write stores and audits them: each event names the environment it waits on. */
export const CHANGE_REQUESTS: VersionedKind<ChangeRequest, PendingChangeRole & AuditRoles> = {
  type: 'change_request',
  key: () => null,
  subjectOf: (request) => request.flagId ?? request.segmentId,
  logOf: (request) => request.projectId,
  insert: (tx, request) => tx.pendingChanges.insert('request', request),
  update: (tx, request, expectedVersion) => tx.pendingChanges.updateRequest(request, expectedVersion),
};

/** What passing the gate gave: the write's result, or the change request made instead. */
export type Gated<T> = { readonly applied: T } | { readonly request: ChangeRequest };

/** What the gate reads and writes: the environments' policies, the requests, their audit events. */
export type GateRoles = ProjectStore & PendingChangeRole & AuditRoles;

/** Who the gate lets through without a change request. */
export type Approval =
  /** The gate decides: a non-admin's write that reaches a guarded environment becomes a change request. */
  | 'gate'
  /** The gate decides for admins too: the command line's import without `--bypass-approvals`. */
  | 'everyone'
  /** Approved already: an approved change request, an approved schedule, a release-plan step run by its plan. */
  | 'approved';

/**
 * The one gate every write that can change what an environment evaluates passes
 * (docs/decisions/1700-one-gate.md), in the write's own transaction: a write that reaches an
 * environment requiring approvals becomes an open change request there, and nothing else is
 * written; answers undefined when the write may go ahead (an admin's, audited as theirs, or
 * one reaching no guarded environment).
 */
export async function gate(
  tx: GateRoles,
  clock: Clock,
  actor: Actor,
  write: GatedWrite,
  approval: Approval = 'gate',
): Promise<ChangeRequest | undefined> {
  if (approval === 'approved') return undefined;
  if (approval === 'gate' && actor.principal.role === 'admin') return undefined;
  const guarded = await guardedEnvironments(tx, write.projectId, write.environments);
  if (guarded.size === 0) return undefined;
  const request = requestOf(clock, actor, write, guarded);
  await writeVersioned(tx, actor, clock, CHANGE_REQUESTS, {
    create: async () => ({
      next: request,
      action: 'change_request.created',
      environment: request.environment,
    }),
  });
  return request;
}

/** The open change request `write` becomes, waiting on the guarded environments it reaches. */
function requestOf(
  clock: Clock,
  actor: Actor,
  write: GatedWrite,
  guarded: Map<string, number>,
): ChangeRequest {
  const environments = [...guarded.keys()];
  const at = isoTime(clock);
  return {
    id: newId('chr'),
    projectId: write.projectId,
    flagId: write.flagId ?? null,
    segmentId: write.segmentId ?? null,
    environment:
      write.environment !== undefined && guarded.has(write.environment)
        ? write.environment
        : (environments[0] as string),
    environments,
    kind: write.kind,
    patch: write.patch,
    changes: write.changes,
    comment: typeof write.patch.comment === 'string' ? write.patch.comment : '',
    baseVersion: write.baseVersion,
    requiredApprovals: Math.max(...guarded.values()),
    author: personOf(actor.principal),
    status: 'open',
    conflict: null,
    approvals: [],
    decidedBy: null,
    failure: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The environments where the gate would stop this actor's writes: every guarded one, for anyone
 * but an admin passing as one. A flag they create is not served there until a write that passed
 * the gate configures it (decision 1854).
 */
export async function gatedFor(
  store: ProjectStore,
  actor: Actor,
  projectId: string,
  approval: Approval = 'gate',
): Promise<ReadonlySet<string>> {
  if (approval === 'approved' || (approval === 'gate' && actor.principal.role === 'admin')) return new Set();
  const policies = await store.requiredApprovals(projectId);
  return new Set([...policies].filter(([, count]) => count > 0).map(([key]) => key));
}

/** The environments among `environments` that require approvals, with how many. */
async function guardedEnvironments(
  store: ProjectStore,
  projectId: string,
  environments: readonly string[],
): Promise<Map<string, number>> {
  if (environments.length === 0) return new Map();
  const policies = await store.requiredApprovals(projectId);
  const guarded = new Map<string, number>();
  for (const key of environments) {
    const count = policies.get(key) ?? 0;
    if (count > 0) guarded.set(key, count);
  }
  return guarded;
}

/** What a written resource is to the open requests waiting on it. */
export type Written =
  | { readonly flag: { readonly id: string; readonly key: string } & object; readonly gone?: boolean }
  | { readonly segment: { readonly id: string } & object; readonly gone?: boolean };

/**
 * Marks conflicted, in the write's transaction, the open requests whose base values this write
 * changed (or whose flag or segment it deleted): they can no longer be approved or applied, and
 * say so before anyone tries. Requests on other fields stay open.
 */
export async function markConflicts(
  tx: PendingChangeRole & AuditRoles,
  actor: Actor,
  projectId: string,
  written: Written,
  at: string,
): Promise<void> {
  const open = await tx.pendingChanges.listRequests(projectId, { status: 'open' }, { limit: 1000 });
  for (const request of open.items) {
    const reason = conflictWith(request, written);
    if (reason === undefined) continue;
    const next: ChangeRequest = {
      ...request,
      status: 'conflicted',
      conflict: `${reason}, by ${actor.principal.name}, since this request was made.`,
      version: request.version + 1,
      updatedAt: at,
    };
    if (!(await tx.pendingChanges.updateRequest(next, request.version))) continue;
    await recordAudit(tx, actor, projectId, {
      at,
      action: 'change_request.conflicted',
      resource: { type: 'change_request', id: request.id, key: null },
      environment: request.environment,
      before: request,
      after: next,
    });
  }
}

/** Why `written` conflicts with `request`, or undefined when it leaves the request's base as it was. */
export function conflictWith(request: ChangeRequest, written: Written): string | undefined {
  if ('flag' in written) {
    const { flag, gone } = written;
    if (request.kind === 'flagd.import') {
      const prefix = `/${flag.key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      const mine = request.changes.filter((c) => c.path === prefix || c.path.startsWith(`${prefix}/`));
      if (mine.length === 0) return undefined;
      const current = { [flag.key]: gone ? null : flag };
      return describe(staleChanges(mine, current), `flag "${flag.key}"`);
    }
    if (request.flagId !== flag.id) return undefined;
    if (gone) return `The flag "${flag.key}" was deleted`;
    // A delete removes the flag whatever it holds: only its being gone already conflicts.
    if (request.kind === 'flag.delete') return undefined;
    // A request from before changes were recorded was made against a version: any write stales it.
    if (request.legacy === true) return `The flag "${flag.key}" changed`;
    return describe(staleChanges(request.changes, flag), `flag "${flag.key}"`);
  }
  if (request.segmentId !== written.segment.id) return undefined;
  if (written.gone) return 'The segment was deleted';
  if (request.kind === 'segment.delete') return undefined;
  return describe(staleChanges(request.changes, written.segment), 'segment');
}

function describe(stale: readonly FieldChange[], what: string): string | undefined {
  if (stale.length === 0) return undefined;
  const paths = stale.map((c) => c.path).join(', ');
  return `${stale.length === 1 ? 'The field' : 'The fields'} ${paths} of the ${what} changed`;
}
