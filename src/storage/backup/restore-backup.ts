import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { migrationProvider } from '../migrations/index.ts';
import { currentSchema, migrateTo, migrateToLatest, openDatabase } from '../open-database.ts';
import type { Database } from '../sql/database.ts';
import { createEventPartition } from '../sql/event-queries.ts';
import { BackupFileError, type BackupHeader, decodeValue } from './backup-file.ts';
import { backupRows, verifyBackup } from './read-backup.ts';
import { appliedMigrations, type SchemaTable, schemaTables } from './schema-tables.ts';

/** Rows per INSERT: well under both databases' limits on bound parameters. */
const MAX_PARAMETERS_PER_INSERT = 10_000;

type AnyDatabase = Kysely<Record<string, Record<string, unknown>>>;

/**
 * Loads a backup into an empty database of either kind (docs/decisions/1733): the file is
 * verified whole first, the target is migrated to the backup's schema and must hold nothing
 * but what migrations put there, every row goes in one transaction, and later migrations then
 * bring the data up to this version. Refusals throw BackupFileError before anything is written.
 */
export async function restoreBackup(
  db: Kysely<Database>,
  path: string,
  verified?: BackupHeader,
): Promise<BackupHeader> {
  const header = verified ?? (await verifyBackup(path));
  const known = Object.keys(await migrationProvider.getMigrations()).sort();
  const unknown = header.migrations.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new BackupFileError(
      `the backup comes from a newer Flagstaff (migrations ${unknown.join(', ')}); restore it with that version or later`,
    );
  }
  const target = header.migrations.at(-1);
  const applied = await appliedMigrationsIfAny(db);
  if (applied.some((name) => !header.migrations.includes(name))) {
    throw new BackupFileError(
      'the target database is migrated past the backup: restore into a new, empty database (never started, never migrated)',
    );
  }
  // Checked before migrating, so that a refused restore changes nothing at all.
  if (applied.length > 0) await checkEmpty(db, await schemaTables(db), applied);
  if (target !== undefined) await migrateTo(db, target);
  checkTablesMatch(header, await schemaTables(db));

  const dialect = db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  const columnsOf = new Map(header.tables.map((table) => [table.name, table.columns]));
  await db.transaction().execute(async (tx) => {
    const anyTx = tx as unknown as AnyDatabase;
    // Only rows migrations seeded are there (checked above): the backup's own replace them.
    for (const table of [...header.tables].reverse()) await anyTx.deleteFrom(table.name).execute();
    let batch: Record<string, unknown>[] = [];
    let batchTable = '';
    const flush = async () => {
      if (batch.length > 0 && dialect === 'postgres' && batchTable === 'events') {
        // Events are partitioned by day on PostgreSQL (decision 1920): their rows' days need partitions first.
        for (const day of new Set(batch.map((row) => Number(row.day)))) await createEventPartition(tx, day);
      }
      if (batch.length > 0) await anyTx.insertInto(batchTable).values(batch).execute();
      batch = [];
    };
    for await (const { table, values } of backupRows(path, header)) {
      const columns = columnsOf.get(table) ?? [];
      if (table !== batchTable || (batch.length + 1) * columns.length > MAX_PARAMETERS_PER_INSERT) {
        await flush();
        batchTable = table;
      }
      batch.push(Object.fromEntries(columns.map((column, i) => [column, decodeValue(values[i], dialect)])));
    }
    await flush();
    if (dialect === 'postgres') await advanceSequences(tx);
  });
  await migrateToLatest(db);
  return header;
}

async function appliedMigrationsIfAny(db: Kysely<Database>): Promise<readonly string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  const schema = await currentSchema(db);
  const migrated = tables.some(
    (table) => table.name === 'kysely_migration' && (schema === undefined || table.schema === schema),
  );
  return migrated ? appliedMigrations(db) : [];
}

/** The file's tables are the schema's, column for column: a table nobody knows stops the restore. */
function checkTablesMatch(header: BackupHeader, tables: readonly SchemaTable[]): void {
  const here = new Map(tables.map((table) => [table.name, table]));
  for (const table of header.tables) {
    const mine = here.get(table.name);
    if (mine === undefined) {
      throw new BackupFileError(`the backup has a table this schema lacks: ${table.name}`);
    }
    const missing = table.columns.filter((column) => !mine.columns.includes(column));
    if (missing.length > 0) {
      throw new BackupFileError(
        `the backup's table ${table.name} has columns this schema lacks: ${missing.join(', ')}`,
      );
    }
  }
  const absent = tables.filter((table) => !header.tables.some((t) => t.name === table.name));
  if (absent.length > 0) {
    throw new BackupFileError(
      `the backup lacks tables of its own schema: ${absent.map((t) => t.name).join(', ')}`,
    );
  }
}

/**
 * Empty means: no rows but those the migrations themselves insert, as counted in a new
 * in-memory database migrated as far. A database a node has started on already holds a project.
 */
async function checkEmpty(
  db: Kysely<Database>,
  tables: readonly SchemaTable[],
  migrations: readonly string[],
): Promise<void> {
  const fresh = openDatabase('sqlite::memory:').db;
  try {
    const last = migrations.at(-1);
    if (last !== undefined) await migrateTo(fresh, last);
    const holding: string[] = [];
    for (const table of tables) {
      const [mine, seeded] = await Promise.all([rowCount(db, table.name), rowCount(fresh, table.name)]);
      if (mine > seeded) holding.push(`${table.name} (${mine})`);
    }
    if (holding.length > 0) {
      throw new BackupFileError(
        `the target database is not empty: ${holding.join(', ')}. Restore into a new, empty database; nothing was written`,
      );
    }
  } finally {
    await fresh.destroy();
  }
}

async function rowCount(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(
    db,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Sequences behind serial or identity columns continue after the restored rows. */
async function advanceSequences(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ table: string; column: string; sequence: string }>`
    select c.table_name as "table", c.column_name as "column",
           pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as "sequence"
    from information_schema.columns c
    where c.table_schema = current_schema()
      and pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) is not null`.execute(db);
  for (const { table, column, sequence } of rows) {
    await sql`select setval(${sequence}, coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(
      db,
    );
  }
}
