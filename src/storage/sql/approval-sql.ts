import type { ChangeRequest, ChangeRequestKind, ChangeRequestStatus } from '../../domain/change-request.ts';
import type { ApprovalStore } from '../approval-store.ts';
import type { Page, PageRequest } from '../store.ts';
import { findOne, paged, SqlRole, touchedOne } from './sql-context.ts';

export interface ApprovalPoliciesTable {
  environment_id: string;
  required_approvals: number;
}

export interface ChangeRequestsTable {
  id: string;
  project_id: string;
  kind: string;
  flag_id: string | null;
  segment_id: string | null;
  environment: string;
  /** JSON array of environment keys. */
  environments: string;
  /** JSON. */
  patch: string;
  /** JSON array of `{ path, before, after }`; NULL for requests made before they were recorded. */
  changes: string | null;
  comment: string;
  base_version: number;
  required_approvals: number;
  /** JSON `{ type, id, name }`. */
  author: string;
  status: string;
  conflict: string | null;
  /** JSON array of `{ by, at, comment }`. */
  approvals: string;
  decided_by: string | null;
  failure: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

const fromRow = (row: ChangeRequestsTable): ChangeRequest => ({
  id: row.id,
  projectId: row.project_id,
  flagId: row.flag_id,
  segmentId: row.segment_id,
  environment: row.environment,
  environments: JSON.parse(row.environments),
  kind: row.kind as ChangeRequestKind,
  patch: JSON.parse(row.patch),
  changes: row.changes === null ? [] : JSON.parse(row.changes),
  ...(row.changes === null ? { legacy: true } : {}),
  comment: row.comment,
  baseVersion: Number(row.base_version),
  requiredApprovals: Number(row.required_approvals),
  author: JSON.parse(row.author),
  status: row.status as ChangeRequestStatus,
  conflict: row.conflict,
  approvals: JSON.parse(row.approvals),
  decidedBy: row.decided_by === null ? null : JSON.parse(row.decided_by),
  failure: row.failure,
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (request: ChangeRequest): ChangeRequestsTable => ({
  id: request.id,
  project_id: request.projectId,
  kind: request.kind,
  flag_id: request.flagId,
  segment_id: request.segmentId,
  environment: request.environment,
  environments: JSON.stringify(request.environments),
  patch: JSON.stringify(request.patch),
  changes: request.legacy === true ? null : JSON.stringify(request.changes),
  comment: request.comment,
  base_version: request.baseVersion,
  required_approvals: request.requiredApprovals,
  author: JSON.stringify(request.author),
  status: request.status,
  conflict: request.conflict,
  approvals: JSON.stringify(request.approvals),
  decided_by: request.decidedBy === null ? null : JSON.stringify(request.decidedBy),
  failure: request.failure,
  version: request.version,
  created_at: request.createdAt,
  updated_at: request.updatedAt,
});

/** Approval policies and change requests in SQL; the same queries on SQLite and PostgreSQL. */
export class SqlApprovals extends SqlRole implements ApprovalStore {
  async requiredApprovals(projectId: string): Promise<ReadonlyMap<string, number>> {
    const rows = await this.db
      .selectFrom('approval_policies')
      .innerJoin('environments', 'environments.id', 'approval_policies.environment_id')
      .select(['environments.key as key', 'approval_policies.required_approvals as count'])
      .where('environments.project_id', '=', projectId)
      .execute();
    return new Map(rows.map((row) => [row.key, Number(row.count)]));
  }

  async setRequiredApprovals(environmentId: string, count: number): Promise<void> {
    await this.db.deleteFrom('approval_policies').where('environment_id', '=', environmentId).execute();
    if (count > 0) {
      await this.db
        .insertInto('approval_policies')
        .values({ environment_id: environmentId, required_approvals: count })
        .execute();
    }
  }

  async insertChangeRequest(request: ChangeRequest): Promise<void> {
    await this.db.insertInto('change_requests').values(toRow(request)).execute();
  }

  findChangeRequest(id: string): Promise<ChangeRequest | undefined> {
    return findOne(this.db.selectFrom('change_requests').selectAll().where('id', '=', id), fromRow);
  }

  listChangeRequests(
    projectId: string,
    filter: { readonly status?: ChangeRequestStatus | undefined; readonly flagId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<ChangeRequest>> {
    let query = this.db.selectFrom('change_requests').selectAll().where('project_id', '=', projectId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.flagId !== undefined) query = query.where('flag_id', '=', filter.flagId);
    return paged(query, { column: 'id', direction: 'desc', of: (row) => row.id }, page, (rows) =>
      rows.map(fromRow),
    );
  }

  async updateChangeRequest(request: ChangeRequest, expectedVersion: number): Promise<boolean> {
    const result = await this.db
      .updateTable('change_requests')
      .set(toRow(request))
      .where('id', '=', request.id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return touchedOne(result);
  }
}
