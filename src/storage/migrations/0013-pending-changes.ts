import { type Kysely, type Migration, sql } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/**
 * Change requests and scheduled changes in one table (docs/decisions/1820): both are a write kept
 * to be made later on behalf of its author, so `pending_changes` holds them, told apart by `kind`
 * ('request', 'schedule'); a column only one kind uses is NULL for the other. Every row of both
 * old tables moves over as it was. `flag_id` has no foreign key (a change request outlives the
 * flag it would delete, as since 0011); the flag's scheduled changes, which went with it by
 * cascade, are now deleted with it by the store.
 */
export const pendingChanges: Migration = {
  async up(db: Kysely<unknown>) {
    await createTable(
      db,
      'pending_changes',
      `id text primary key, kind text not null, write_kind text not null,
      project_id text not null references projects.id cascade, flag_id text, segment_id text,
      environment text not null, environments text, patch text not null, changes text, comment text not null,
      author text not null, status text not null, at text, base_version integer, required_approvals integer,
      conflict text, approvals text, decided_by text, failure text, settled_at text, version integer not null,
      created_at text not null, updated_at text not null`,
    ).execute();
    await sql`
      INSERT INTO pending_changes (id, kind, write_kind, project_id, flag_id, segment_id, environment,
        environments, patch, changes, comment, author, status, at, base_version, required_approvals,
        conflict, approvals, decided_by, failure, settled_at, version, created_at, updated_at)
      SELECT id, 'request', kind, project_id, flag_id, segment_id, environment,
        environments, patch, changes, comment, author, status, NULL, base_version, required_approvals,
        conflict, approvals, decided_by, failure, NULL, version, created_at, updated_at
      FROM change_requests`.execute(db);
    await sql`
      INSERT INTO pending_changes (id, kind, write_kind, project_id, flag_id, segment_id, environment,
        environments, patch, changes, comment, author, status, at, base_version, required_approvals,
        conflict, approvals, decided_by, failure, settled_at, version, created_at, updated_at)
      SELECT id, 'schedule', 'flag.patch', project_id, flag_id, NULL, environment,
        NULL, patch, NULL, comment, author, status, at, NULL, NULL,
        NULL, NULL, NULL, failure, applied_at, 1, created_at, COALESCE(applied_at, created_at)
      FROM scheduled_changes`.execute(db);
    await db.schema.dropTable('change_requests').execute();
    await db.schema.dropTable('scheduled_changes').execute();
    // The scheduler's "what is due?", a flag's schedule, a project's requests by status.
    await createIndex(db, 'pending_changes_due', 'pending_changes', ['kind', 'status', 'at']);
    await createIndex(db, 'pending_changes_flag', 'pending_changes', ['flag_id', 'at']);
    await createIndex(db, 'pending_changes_project', 'pending_changes', [
      'project_id',
      'kind',
      'status',
      'id',
    ]);
  },
};
