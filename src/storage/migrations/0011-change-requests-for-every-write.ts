import { type Kysely, type Migration, sql } from 'kysely';

const text = 'text' as const;
const integer = 'integer' as const;

/**
 * Change requests for every gated write (docs/decisions/1700-one-gate.md): a kind, an optional
 * segment instead of a flag, every guarded environment, the changed fields with their base values,
 * and why a request is conflicted. The table is rebuilt (SQLite cannot drop a NOT NULL): `flag_id`
 * becomes nullable and loses its cascade, so a request outlives the flag it would delete. Existing
 * rows are flag patches; their `changes` stay NULL, meaning "the whole patch onto base_version",
 * which is how they were always applied.
 */
export const changeRequestsForEveryWrite: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('change_requests_0011')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('kind', text, (c) => c.notNull())
      .addColumn('flag_id', text)
      .addColumn('segment_id', text)
      .addColumn('environment', text, (c) => c.notNull())
      .addColumn('environments', text, (c) => c.notNull())
      .addColumn('patch', text, (c) => c.notNull())
      .addColumn('changes', text)
      .addColumn('comment', text, (c) => c.notNull())
      .addColumn('base_version', integer, (c) => c.notNull())
      .addColumn('required_approvals', integer, (c) => c.notNull())
      .addColumn('author', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('conflict', text)
      .addColumn('approvals', text, (c) => c.notNull())
      .addColumn('decided_by', text)
      .addColumn('failure', text)
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    await sql`
      INSERT INTO change_requests_0011 (id, project_id, kind, flag_id, segment_id, environment,
        environments, patch, changes, comment, base_version, required_approvals, author, status,
        conflict, approvals, decided_by, failure, version, created_at, updated_at)
      SELECT id, project_id, 'flag.patch', flag_id, NULL, environment,
        '["' || environment || '"]', patch, NULL, comment, base_version, required_approvals, author,
        status, NULL, approvals, decided_by, failure, version, created_at, updated_at
      FROM change_requests`.execute(db);
    await db.schema.dropTable('change_requests').execute();
    await db.schema.alterTable('change_requests_0011').renameTo('change_requests').execute();
    // The index went with the old table; PostgreSQL keeps index names per schema, so a new name.
    await db.schema
      .createIndex('change_requests_by_project')
      .on('change_requests')
      .columns(['project_id', 'status', 'id'])
      .execute();
  },
};
