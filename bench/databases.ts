import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase } from '../src/storage/open-database.ts';
import type { Database } from '../src/storage/sql/database.ts';
import { runAdmin } from '../test/support/postgres-admin.ts';
import { benchPostgresUrl } from './child.ts';

// The databases the storage benchmarks measure: migrated, of their own, and gone once closed.

export interface BenchDatabase {
  readonly name: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;
  close(): Promise<void>;
}

/** `db` migrated; closing it destroys it, then runs `cleanUp`. */
async function migrated(
  name: BenchDatabase['name'],
  db: Kysely<Database>,
  cleanUp: () => unknown,
): Promise<BenchDatabase> {
  await migrateToLatest(db);
  return {
    name,
    db,
    async close() {
      await db.destroy();
      await cleanUp();
    },
  };
}

/** A SQLite file in a fresh temporary folder (a file, not memory: the disk is part of what is measured). */
export function openBenchSqlite(label: string): Promise<BenchDatabase> {
  const folder = mkdtempSync(join(tmpdir(), `flagstaff-${label}-`));
  const { db } = openDatabase(`sqlite:${join(folder, 'bench.db')}`);
  return migrated('sqlite', db, () => rmSync(folder, { recursive: true, force: true }));
}

/** A schema of this process in the PostgreSQL at `url`, dropped on close. */
export async function openBenchPostgres(url: string, label: string): Promise<BenchDatabase> {
  const schema = `bench_${label}_${process.pid}_${Date.now()}`;
  await runAdmin(url, `create schema ${schema}`);
  return migrated('postgres', openDatabase(url, { schema }).db, () =>
    runAdmin(url, `drop schema ${schema} cascade`),
  );
}

/** The databases a storage bench measures, by the name its rows give: SQLite always, PostgreSQL when one is named. */
export function benchDatabases(label: string): [name: string, open: () => Promise<BenchDatabase>][] {
  const databases: [string, () => Promise<BenchDatabase>][] = [['SQLite', () => openBenchSqlite(label)]];
  const url = benchPostgresUrl();
  if (url) databases.push(['PostgreSQL', () => openBenchPostgres(url, label)]);
  return databases;
}

/** One row of `measure` for each of the bench's databases, measured one after the other. */
export async function rowOnEach<R>(
  label: string,
  measure: (name: string, open: () => Promise<BenchDatabase>) => Promise<R>,
): Promise<R[]> {
  const rows: R[] = [];
  for (const [name, open] of benchDatabases(label)) rows.push(await measure(name, open));
  return rows;
}
