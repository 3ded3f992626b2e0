import { Kysely, Migrator, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './sql/database.ts';
import { NodeSqliteDialect, openNodeSqlite } from './sqlite/node-sqlite-database.ts';

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
      db: new Kysely<Database>({ dialect: new NodeSqliteDialect(openNodeSqlite(path)) }),
    };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A database that went away must fail requests quickly (503), not hang them.
    connectionTimeoutMillis: 3000,
    keepAlive: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle or checked-out connection that breaks emits 'error'; unhandled, that ends the
  // process. The failed query (if any) rejects on its own, and the pool drops the connection.
  pool.on('error', ignoreConnectionError);
  pool.on('connect', (client) => client.on('error', ignoreConnectionError));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return { dialect: 'postgres', db };
}

const ignoreConnectionError = () => {};

const pools = new WeakMap<Kysely<Database>, pg.Pool>();

/** The pool behind a PostgreSQL database opened here (the change feed takes its LISTEN connection from it). */
export function postgresPoolOf(db: Kysely<Database>): pg.Pool | undefined {
  return pools.get(db);
}

/** The PostgreSQL connection's own schema; undefined on SQLite. */
export async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  return (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
}

async function migrator(db: Kysely<Database>): Promise<Migrator> {
  // Kysely looks for its migration tables in every schema it can see unless told which one;
  // naming the connection's own schema keeps databases that share a server (and tests) apart.
  const schema = await currentSchema(db);
  return new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<readonly string[]> {
  const { error, results } = await (await migrator(db)).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies the migrations up to and with `name` (a restore into the backup's schema; migration tests). */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  const { error } = await (await migrator(db)).migrateTo(name);
  if (error) throw error;
}
