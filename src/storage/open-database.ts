import { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './sql/database.ts';
import { openNodeSqlite } from './sqlite/node-sqlite-database.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
}

/** Opens `sqlite:PATH`, `sqlite::memory:` or `postgres://…`; `schema` puts PostgreSQL tables in their own schema (tests). */
export function openDatabase(url: string, options: { schema?: string } = {}): OpenDatabase {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    return {
      dialect: 'sqlite',
      db: new Kysely<Database>({ dialect: new SqliteDialect({ database: openNodeSqlite(path) }) }),
    };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  return { dialect: 'postgres', db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
}

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<readonly string[]> {
  // Kysely looks for its migration tables in every schema it can see unless told which one;
  // naming the connection's own schema keeps databases that share a server (and tests) apart.
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
