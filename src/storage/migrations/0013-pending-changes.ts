import { type Kysely, type Migration, sql } from 'kysely';

const text = 'text' as const;
const integer = 'integer' as const;

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
    await db.schema
      .createTable('pending_changes')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('kind', text, (c) => c.notNull())
      .addColumn('write_kind', text, (c) => c.notNull())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('flag_id', text)
      .addColumn('segment_id', text)
      .addColumn('environment', text, (c) => c.notNull())
      .addColumn('environments', text)
      .addColumn('patch', text, (c) => c.notNull())
      .addColumn('changes', text)
      .addColumn('comment', text, (c) => c.notNull())
      .addColumn('author', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('at', text)
      .addColumn('base_version', integer)
      .addColumn('required_approvals', integer)
      .addColumn('conflict', text)
      .addColumn('approvals', text)
      .addColumn('decided_by', text)
      .addColumn('failure', text)
      .addColumn('settled_at', text)
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
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
    await db.schema
      .createIndex('pending_changes_due')
      .on('pending_changes')
      .columns(['kind', 'status', 'at'])
      .execute();
    await db.schema
      .createIndex('pending_changes_flag')
      .on('pending_changes')
      .columns(['flag_id', 'at'])
      .execute();
    await db.schema
      .createIndex('pending_changes_project')
      .on('pending_changes')
      .columns(['project_id', 'kind', 'status', 'id'])
      .execute();
  },
};
