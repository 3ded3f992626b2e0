import type { ChangeRequest, ChangeRequestKind, ChangeRequestStatus } from '../../domain/change-request.ts';
import type { ScheduledChange, ScheduledChangeStatus } from '../../domain/scheduled-change.ts';
import type { PendingChangeStore, PendingKind, PendingKinds } from '../pending-change-store.ts';
import type { PendingChangesTable } from './database.ts';
import { findOne, paged, type SqlContext, touchedOne } from './sql-context.ts';

type Row = PendingChangesTable;

/** What every pending change is: a write of a project's, by an author, waiting in some status. */
interface Pending {
  readonly id: string;
  readonly projectId: string;
  readonly flagId: string | null;
  readonly environment: string;
  readonly patch: unknown;
  readonly comment: string;
  readonly author: unknown;
  readonly status: string;
  readonly failure: string | null;
  readonly createdAt: string;
}

const pendingFromRow = (row: Row) => ({
  id: row.id,
  projectId: row.project_id,
  flagId: row.flag_id,
  environment: row.environment,
  patch: JSON.parse(row.patch),
  comment: row.comment,
  author: JSON.parse(row.author),
  failure: row.failure,
  createdAt: row.created_at,
});

/** The columns of the kind, with those only the other kind uses NULL. */
const pendingToRow = (kind: PendingKind, pending: Pending) => ({
  id: pending.id,
  kind,
  project_id: pending.projectId,
  flag_id: pending.flagId,
  environment: pending.environment,
  patch: JSON.stringify(pending.patch),
  comment: pending.comment,
  author: JSON.stringify(pending.author),
  status: pending.status,
  failure: pending.failure,
  created_at: pending.createdAt,
});

const requestFromRow = (row: Row): ChangeRequest => ({
  ...pendingFromRow(row),
  segmentId: row.segment_id,
  environments: JSON.parse(row.environments ?? '[]'),
  kind: row.write_kind as ChangeRequestKind,
  changes: row.changes === null ? [] : JSON.parse(row.changes),
  ...(row.changes === null ? { legacy: true } : {}),
  baseVersion: Number(row.base_version),
  requiredApprovals: Number(row.required_approvals),
  status: row.status as ChangeRequestStatus,
  conflict: row.conflict,
  approvals: JSON.parse(row.approvals ?? '[]'),
  decidedBy: row.decided_by === null ? null : JSON.parse(row.decided_by),
  version: Number(row.version),
  updatedAt: row.updated_at,
});

const requestToRow = (request: ChangeRequest): Row => ({
  ...pendingToRow('request', request),
  write_kind: request.kind,
  segment_id: request.segmentId,
  environments: JSON.stringify(request.environments),
  changes: request.legacy === true ? null : JSON.stringify(request.changes),
  at: null,
  base_version: request.baseVersion,
  required_approvals: request.requiredApprovals,
  conflict: request.conflict,
  approvals: JSON.stringify(request.approvals),
  decided_by: request.decidedBy === null ? null : JSON.stringify(request.decidedBy),
  settled_at: null,
  version: request.version,
  updated_at: request.updatedAt,
});

const scheduleFromRow = (row: Row): ScheduledChange => ({
  ...pendingFromRow(row),
  flagId: row.flag_id as string,
  at: row.at as string,
  status: row.status as ScheduledChangeStatus,
  settledAt: row.settled_at,
  // A schedule's decided_by holds what approved it, a change request or a release plan (requests keep their decider there).
  ...approverOf(row.decided_by === null ? {} : (JSON.parse(row.decided_by) as Approver)),
});

interface Approver {
  readonly changeRequest?: string;
  readonly releasePlan?: string;
  readonly milestone?: number;
}

const approverOf = (approver: Approver): Partial<ScheduledChange> => ({
  ...(approver.changeRequest === undefined ? {} : { approvedBy: approver.changeRequest }),
  ...(approver.releasePlan === undefined
    ? {}
    : { releaseStep: { plan: approver.releasePlan, milestone: approver.milestone ?? 0 } }),
});

function approverToColumn(change: ScheduledChange): string | null {
  const approver: Approver = {
    ...(change.approvedBy === undefined ? {} : { changeRequest: change.approvedBy }),
    ...(change.releaseStep === undefined
      ? {}
      : { releasePlan: change.releaseStep.plan, milestone: change.releaseStep.milestone }),
  };
  return Object.keys(approver).length === 0 ? null : JSON.stringify(approver);
}

const scheduleToRow = (change: ScheduledChange): Row => ({
  ...pendingToRow('schedule', change),
  // A scheduled change is a flag patch, applied as the author would have made it then.
  write_kind: 'flag.patch',
  segment_id: null,
  environments: null,
  changes: null,
  at: change.at,
  base_version: null,
  required_approvals: null,
  conflict: null,
  approvals: null,
  decided_by: approverToColumn(change),
  settled_at: change.settledAt,
  version: 1,
  updated_at: change.settledAt ?? change.createdAt,
});

const rows: { [K in PendingKind]: { to(change: PendingKinds[K]): Row; from(row: Row): PendingKinds[K] } } = {
  request: { to: requestToRow, from: requestFromRow },
  schedule: { to: scheduleToRow, from: scheduleFromRow },
};

/** Change requests and scheduled changes: one table, the same queries on SQLite and PostgreSQL. */
/** Settles a pending schedule; false when it is not pending (settled or cancelled already, or gone). */
async function settleSchedule(
  db: SqlContext['db'],
  id: string,
  status: Exclude<ScheduledChangeStatus, 'pending'>,
  at: string,
  failure: string | undefined,
): Promise<boolean> {
  // PostgreSQL re-checks `status = 'pending'` once a concurrent settler's lock is released, so
  // the loser of a race updates nothing.
  const result = await db
    .updateTable('pending_changes')
    .set((eb) => ({
      status,
      settled_at: at,
      failure: failure ?? null,
      updated_at: at,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', id)
    .where('kind', '=', 'schedule')
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return touchedOne(result);
}

export function pendingChangeQueries({ db }: SqlContext): PendingChangeStore {
  const ofKind = (kind: PendingKind) => db.selectFrom('pending_changes').selectAll().where('kind', '=', kind);
  const schedules = (query: ReturnType<typeof ofKind>) => query.orderBy('at').orderBy('id').execute();
  return {
    async insert(kind, change) {
      await db.insertInto('pending_changes').values(rows[kind].to(change)).execute();
    },

    find: (kind, id) => findOne(ofKind(kind).where('id', '=', id), rows[kind].from),

    listRequests(projectId, filter, page) {
      let query = ofKind('request').where('project_id', '=', projectId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.flagId !== undefined) query = query.where('flag_id', '=', filter.flagId);
      return paged(query, { column: 'id', direction: 'desc', of: (row) => row.id }, page, (found) =>
        found.map(requestFromRow),
      );
    },

    async updateRequest(request, expectedVersion) {
      const result = await db
        .updateTable('pending_changes')
        .set(requestToRow(request))
        .where('id', '=', request.id)
        .where('kind', '=', 'request')
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return touchedOne(result);
    },

    async listSchedules(flagId, status) {
      let query = ofKind('schedule').where('flag_id', '=', flagId);
      if (status !== undefined) query = query.where('status', '=', status);
      return (await schedules(query)).map(scheduleFromRow);
    },

    async due(now, limit) {
      const query = ofKind('schedule').where('status', '=', 'pending').where('at', '<=', now);
      return (await schedules(query.limit(limit))).map(scheduleFromRow);
    },

    settle: (id, status, at, failure) => settleSchedule(db, id, status, at, failure),

    async postpone(id, at) {
      const result = await db
        .updateTable('pending_changes')
        .set({ at })
        .where('id', '=', id)
        .where('kind', '=', 'schedule')
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return touchedOne(result);
    },
  };
}
