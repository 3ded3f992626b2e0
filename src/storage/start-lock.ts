import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from './sql/database.ts';

/** The advisory lock's first key: Flagstaff's start (the second is the schema's name). */
const START_LOCK_CLASS = 0x666c6167; // "flag"

/**
 * Runs `work` (migrations, first-start setup) while holding a PostgreSQL advisory lock of this
 * schema, so that nodes starting together on one database do it once, one after the other
 * (docs/decisions/1732-nodes-starting-together.md). SQLite: one writer at a time already.
 */
export async function withStartLock<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return work();
  // A session lock on a connection of its own: the work runs on others (and in transactions).
  return db.connection().execute(async (connection) => {
    const key = sql`${START_LOCK_CLASS}::int, hashtext(coalesce(current_schema(), ''))`;
    await sql`select pg_advisory_lock(${key})`.execute(connection);
    try {
      return await work();
    } finally {
      // A connection that broke took its lock with it.
      await sql`select pg_advisory_unlock(${key})`.execute(connection).catch(() => {});
    }
  });
}
