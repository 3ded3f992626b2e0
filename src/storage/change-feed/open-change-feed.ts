import type { Kysely } from 'kysely';
import { postgresPoolOf } from '../open-database.ts';
import type { Database } from '../sql/database.ts';
import type { ChangeFeed } from './change-feed.ts';
import { PostgresChangeFeed } from './postgres-change-feed.ts';
import { SqliteChangeFeed } from './sqlite-change-feed.ts';

/** The change feed of a database opened with `openDatabase`: LISTEN on PostgreSQL, data_version on SQLite. */
export function openChangeFeed(db: Kysely<Database>): ChangeFeed {
  const pool = postgresPoolOf(db);
  return pool === undefined ? new SqliteChangeFeed(db) : new PostgresChangeFeed(pool);
}
