import type { ScheduledChange, ScheduledChangeStatus } from '../../domain/scheduled-change.ts';
import type { ScheduledChangeStore } from '../scheduled-change-store.ts';
import type { ScheduledChangesTable } from './database.ts';
import { pendingPatchFromRow, pendingPatchToRow } from './pending-patch-rows.ts';
import { findOne, SqlRole, touchedOne } from './sql-context.ts';

const fromRow = (row: ScheduledChangesTable): ScheduledChange => ({
  ...pendingPatchFromRow(row),
  at: row.at,
  status: row.status as ScheduledChangeStatus,
  author: JSON.parse(row.author),
  createdAt: row.created_at,
  settledAt: row.applied_at,
  failure: row.failure,
});

const toRow = (change: ScheduledChange): ScheduledChangesTable => ({
  ...pendingPatchToRow(change),
  at: change.at,
  status: change.status,
  author: JSON.stringify(change.author),
  created_at: change.createdAt,
  applied_at: change.settledAt,
  failure: change.failure,
});

/** Scheduled changes in SQL; the same queries on SQLite and PostgreSQL. */
export class SqlScheduledChanges extends SqlRole implements ScheduledChangeStore {
  async insert(change: ScheduledChange): Promise<void> {
    await this.db.insertInto('scheduled_changes').values(toRow(change)).execute();
  }

  find(id: string): Promise<ScheduledChange | undefined> {
    return findOne(this.db.selectFrom('scheduled_changes').selectAll().where('id', '=', id), fromRow);
  }

  async listForFlag(flagId: string, status?: ScheduledChangeStatus): Promise<readonly ScheduledChange[]> {
    let query = this.db.selectFrom('scheduled_changes').selectAll().where('flag_id', '=', flagId);
    if (status !== undefined) query = query.where('status', '=', status);
    const rows = await query.orderBy('at').orderBy('id').execute();
    return rows.map(fromRow);
  }

  async due(now: string, limit: number): Promise<readonly ScheduledChange[]> {
    const rows = await this.db
      .selectFrom('scheduled_changes')
      .selectAll()
      .where('status', '=', 'pending')
      .where('at', '<=', now)
      .orderBy('at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(fromRow);
  }

  async settle(
    id: string,
    status: Exclude<ScheduledChangeStatus, 'pending'>,
    at: string,
    failure?: string,
  ): Promise<boolean> {
    // PostgreSQL re-checks `status = 'pending'` once a concurrent settler's lock is released, so
    // the loser of a race updates nothing.
    const result = await this.db
      .updateTable('scheduled_changes')
      .set({ status, applied_at: at, failure: failure ?? null })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return touchedOne(result);
  }
}
