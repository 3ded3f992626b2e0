import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { createTable } from './schema.ts';

/**
 * The change feed's database side (docs/decisions/0204): a counter that moves with every change
 * to an API key, and on PostgreSQL a notification for every key change and every project
 * created or deleted (revision bumps notify from `bumpRevision`, saying what changed).
 * Triggers rather than application code, so no writer can forget it: the API, the CLI, a
 * project deleted with its keys by cascade.
 */
export const changeFeed: Migration = {
  async up(db: Kysely<unknown>) {
    await createTable(db, 'change_counters', 'name text primary key, revision integer not null').execute();
    await sql`insert into change_counters (name, revision) values ('api_keys', 1)`.execute(db);
    // Columns that change who a key authenticates; last use (written in batches) is not one.
    const columns = sql.raw('revoked_at, expires_at, role, environments, project_id, secret_hash, name');
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      // TG_TABLE_SCHEMA names the channel, so installations (and tests) sharing a server in
      // separate schemas do not hear each other. pg_notify is delivered when the write commits.
      await sql`
        create function flagstaff_api_keys_changed() returns trigger language plpgsql as $$
        begin
          execute format('update %I.change_counters set revision = revision + 1 where name = ''api_keys''', TG_TABLE_SCHEMA);
          perform pg_notify('flagstaff_' || TG_TABLE_SCHEMA, 'k');
          return null;
        end $$`.execute(db);
      await sql`
        create function flagstaff_project_revision_changed() returns trigger language plpgsql as $$
        begin
          if TG_OP = 'DELETE' then
            perform pg_notify('flagstaff_' || TG_TABLE_SCHEMA, 'p:' || OLD.project_id || ':');
          else
            perform pg_notify('flagstaff_' || TG_TABLE_SCHEMA, 'p:' || NEW.project_id || ':' || NEW.revision);
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger api_keys_changed after insert or delete or update of ${columns} on api_keys
        for each statement execute function flagstaff_api_keys_changed()`.execute(db);
      // Revisions that move are announced by bumpRevision itself, with what changed; projects
      // created or deleted (and their rows cascading away) by this trigger.
      await sql`create trigger project_revision_changed after insert or delete on project_revisions
        for each row execute function flagstaff_project_revision_changed()`.execute(db);
      return;
    }
    // SQLite: other processes notice through PRAGMA data_version; the counter says what moved.
    const bump = sql`update change_counters set revision = revision + 1 where name = 'api_keys'`;
    await sql`create trigger api_keys_inserted after insert on api_keys begin ${bump}; end`.execute(db);
    await sql`create trigger api_keys_deleted after delete on api_keys begin ${bump}; end`.execute(db);
    await sql`create trigger api_keys_updated after update of ${columns} on api_keys begin ${bump}; end`.execute(
      db,
    );
  },
};
