import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Kysely, type LogEvent, Kysely as Open, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { migrationProvider } from '../../src/storage/migrations/index.ts';
import { migrateTo } from '../../src/storage/open-database.ts';
import type { Database } from '../../src/storage/sql/database.ts';
import { openNodeSqlite } from '../../src/storage/sqlite/node-sqlite-database.ts';
import { createTestSchema, describeEachDatabase } from '../support/database.ts';

// A released migration never changes what it does to a database (migrations/index.ts). This
// holds each one to the statements it ran when it was recorded, on both databases: code shared
// between migrations may be tidied, as long as every statement stays the same.
// FLAGSTAFF_RECORD_MIGRATION_SQL=1 records a new migration's statements (never an old one's) in
// migration-sql/<database>.json.

const RECORDED = join(import.meta.dirname, 'migration-sql');
const RECORD = process.env.FLAGSTAFF_RECORD_MIGRATION_SQL === '1';

/** The migrator's own bookkeeping and catalogue reads: not what a migration does. */
const BOOKKEEPING =
  /kysely_migration|pg_catalog|pg_advisory|information_schema|sqlite_master|current_schema\(\) as schema|^(begin|commit|rollback)$/;

async function open(
  dialect: 'sqlite' | 'postgres',
  log: (event: LogEvent) => void,
): Promise<Kysely<Database>> {
  if (dialect === 'sqlite') {
    return new Open<Database>({ dialect: new SqliteDialect({ database: openNodeSqlite(':memory:') }), log });
  }
  const url = process.env.FLAGSTAFF_TEST_DATABASE_URL as string;
  const schema = await createTestSchema(url);
  const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
  return new Open<Database>({ dialect: new PostgresDialect({ pool }), log });
}

/** Every migration's statements, each with its parameters, by migration name. */
async function statementsOf(dialect: 'sqlite' | 'postgres'): Promise<Record<string, string[]>> {
  let ran: string[] = [];
  const db = await open(dialect, (event) => {
    const { sql, parameters } = event.query;
    const statement = sql.replace(/\s+/g, ' ').trim();
    if (!BOOKKEEPING.test(statement)) ran.push(`${statement} -- ${JSON.stringify(parameters)}`);
  });
  const statements: Record<string, string[]> = {};
  try {
    for (const name of Object.keys(await migrationProvider.getMigrations()).sort()) {
      ran = [];
      await migrateTo(db, name);
      statements[name] = ran;
    }
  } finally {
    await db.destroy();
  }
  return statements;
}

describeEachDatabase('released migrations', (database) => {
  it('run the statements they ran when they were recorded', { timeout: 180_000 }, async () => {
    const file = join(RECORDED, `${database.name}.json`);
    const recorded: Record<string, string[]> = JSON.parse(readFileSync(file, 'utf8'));
    const now = await statementsOf(database.name);
    if (RECORD) writeFileSync(file, `${JSON.stringify({ ...now, ...recorded }, null, 2)}\n`);
    for (const [name, statements] of Object.entries(recorded)) expect(now[name], name).toEqual(statements);
    const unrecorded = Object.keys(now).filter((name) => recorded[name] === undefined);
    expect(unrecorded, 'record them: FLAGSTAFF_RECORD_MIGRATION_SQL=1').toEqual([]);
  });
});
