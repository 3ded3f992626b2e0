import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from '../sql/database.ts';

/** A table of Flagstaff's schema as the database itself describes it. */
export interface SchemaTable {
  readonly name: string;
  readonly columns: readonly string[];
}

const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Kysely's bookkeeping and SQLite's own tables: the target has its own. */
const NOT_DATA = /^(kysely_|sqlite_)/;

/**
 * Every data table of the connection's schema, read from the database (not from a list in the
 * code, so a table a migration adds is never forgotten), parents before the tables whose
 * foreign keys name them (docs/decisions/1733-backup-and-restore.md).
 */
export async function schemaTables(db: Kysely<Database>): Promise<readonly SchemaTable[]> {
  const postgres = isPostgres(db);
  const schema = postgres
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  // A partition's rows are its parent's (events by day, decision 1920): the parent is copied, once.
  const partitions = postgres ? await postgresPartitions(db) : new Set<string>();
  const tables = (await db.introspection.getTables())
    .filter((table) => !table.isView && !NOT_DATA.test(table.name) && !partitions.has(table.name))
    .filter((table) => schema === undefined || table.schema === schema)
    .map((table) => ({ name: table.name, columns: table.columns.map((column) => column.name) }));
  const references = postgres ? await postgresReferences(db) : await sqliteReferences(db);
  return parentsFirst(tables, references);
}

interface Reference {
  readonly table: string;
  readonly references: string;
}

async function sqliteReferences(db: Kysely<Database>): Promise<readonly Reference[]> {
  const { rows } = await sql<Reference>`
    select m.name as "table", f."table" as "references"
    from sqlite_master m join pragma_foreign_key_list(m.name) f
    where m.type = 'table'`.execute(db);
  return rows;
}

async function postgresPartitions(db: Kysely<Database>): Promise<ReadonlySet<string>> {
  const { rows } = await sql<{ name: string }>`
    select relname as name from pg_class
    where relispartition and relnamespace = current_schema()::regnamespace`.execute(db);
  return new Set(rows.map((row) => row.name));
}

async function postgresReferences(db: Kysely<Database>): Promise<readonly Reference[]> {
  const { rows } = await sql<Reference>`
    select child.relname as "table", parent.relname as "references"
    from pg_constraint c
    join pg_class child on child.oid = c.conrelid
    join pg_class parent on parent.oid = c.confrelid
    where c.contype = 'f' and child.relnamespace = current_schema()::regnamespace`.execute(db);
  return rows;
}

/** Tables ordered so that each comes after every table it references (a table naming itself is fine). */
function parentsFirst(tables: readonly SchemaTable[], references: readonly Reference[]): SchemaTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const ordered: SchemaTable[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`foreign keys form a cycle through table ${name}`);
    state.set(name, 'visiting');
    for (const reference of references) {
      if (reference.table === name && reference.references !== name && byName.has(reference.references)) {
        visit(reference.references);
      }
    }
    state.set(name, 'done');
    ordered.push(byName.get(name) as SchemaTable);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table.name);
  return ordered;
}

/** The names of the migrations applied to this database, in order. */
export async function appliedMigrations(db: Kysely<Database>): Promise<readonly string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}
