import { sql } from 'kysely';
import { migrateTo, openDatabase } from '../open-database.ts';
import { BackupFileError, type BackupHeader } from './backup-file.ts';
import { backupRows } from './read-backup.ts';

interface NulRow {
  readonly table: string;
  readonly column: string;
  readonly row: Readonly<Record<string, unknown>>;
}

/** The first row of the backup with a text value holding U+0000, and its column. */
async function firstNulRow(path: string, header: BackupHeader): Promise<NulRow | undefined> {
  const columnsOf = new Map(header.tables.map((table) => [table.name, table.columns]));
  for await (const { table, values } of backupRows(path, header)) {
    const index = values.findIndex((value) => typeof value === 'string' && value.includes('\u0000'));
    if (index < 0) continue;
    const columns = columnsOf.get(table) ?? [];
    const row = Object.fromEntries(columns.map((column, i) => [column, values[i]]));
    return { table, column: columns[index] as string, row };
  }
  return undefined;
}

/** The primary-key columns of `table` in the backup's schema, read from a new in-memory database migrated as far. */
async function keyColumns(header: BackupHeader, table: string): Promise<string[]> {
  const fresh = openDatabase('sqlite::memory:').db;
  try {
    const last = header.migrations.at(-1);
    if (last !== undefined) await migrateTo(fresh, last);
    const { rows } = await sql<{ name: string }>`
      select name from pragma_table_info(${table}) where pk > 0 order by pk`.execute(fresh);
    return rows.map((row) => row.name);
  } finally {
    await fresh.destroy();
  }
}

/**
 * Refuses, before anything is written, a backup that PostgreSQL cannot take: SQLite stores U+0000
 * in text, PostgreSQL refuses it, and the API refuses it since decision 1900. The message names
 * the row by its table, primary key and column, so the operator can fix it at the source.
 */
export async function refuseNulForPostgres(path: string, header: BackupHeader): Promise<void> {
  const found = await firstNulRow(path, header);
  if (found === undefined) return;
  const keys = await keyColumns(header, found.table);
  const named = (keys.length > 0 ? keys : Object.keys(found.row).slice(0, 1))
    .map((column) => `${column} = ${JSON.stringify(found.row[column])}`)
    .join(', ');
  throw new BackupFileError(
    `table ${found.table}, row ${named}, column ${found.column} holds the NUL character (\\u0000), which PostgreSQL cannot store: nothing was written. Remove it from the source database and back up again, or restore into SQLite`,
  );
}
