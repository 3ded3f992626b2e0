import type {
  Insertable,
  Kysely,
  OnConflictBuilder,
  OnConflictDoNothingBuilder,
  OnConflictUpdateBuilder,
} from 'kysely';
import type { Database } from './database.ts';

/**
 * Rows a statement writes (or units it reads) at the most. A row of this store binds at most ten
 * parameters, so a statement stays far below SQLite's limit of bound parameters (32,766) and
 * PostgreSQL's (65,535).
 */
export const ROWS_PER_STATEMENT = 1000;

/** `items` in slices of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Rows upserted into `table` in statements of at most ROWS_PER_STATEMENT rows, each with the same
 * conflict rule, in the caller's transaction.
 */
export async function upsertInChunks<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  conflict: (
    oc: OnConflictBuilder<Database, T>,
  ) => OnConflictDoNothingBuilder<Database, T> | OnConflictUpdateBuilder<Database, T>,
): Promise<void> {
  for (const chunk of chunks(rows, ROWS_PER_STATEMENT)) {
    // One statement for every table: Kysely cannot relate a table parameter to its columns, hence `never`.
    await db
      .insertInto(table)
      .values(chunk as never)
      .onConflict(conflict as never)
      .execute();
  }
}

/** The rows of distinct `units` (each once), read in statements of at most ROWS_PER_STATEMENT units, mapped in order. */
export async function readByUnits<Row, T>(
  units: readonly string[],
  read: (chunk: string[]) => Promise<Row[]>,
  map: (row: Row) => T,
): Promise<T[]> {
  const found: T[] = [];
  for (const chunk of chunks([...new Set(units)], ROWS_PER_STATEMENT)) {
    for (const row of await read(chunk)) found.push(map(row));
  }
  return found;
}
