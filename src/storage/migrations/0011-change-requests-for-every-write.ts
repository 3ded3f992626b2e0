import { type Kysely, type Migration, sql } from 'kysely';
import { createIndex, createTable } from './schema.ts';

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
    await createTable(
      db,
      'change_requests_0011',
      `id text primary key, project_id text not null references projects.id cascade,
      kind text not null, flag_id text, segment_id text, environment text not null, environments text not null,
      patch text not null, changes text, comment text not null, base_version integer not null,
      required_approvals integer not null, author text not null, status text not null, conflict text,
      approvals text not null, decided_by text, failure text, version integer not null,
      created_at text not null, updated_at text not null`,
    ).execute();
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
    await createIndex(db, 'change_requests_by_project', 'change_requests', ['project_id', 'status', 'id']);
  },
};
