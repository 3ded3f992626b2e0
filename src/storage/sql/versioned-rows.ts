import type { Database } from './database.ts';
import { mapUnique, type SqlContext, touchedOne } from './sql-context.ts';

// What the tables of versioned resources share (projects, environments, flags, segments,
// accounts): the compare-and-set update, the delete that says whether it deleted, every row of
// one project.

/** Tables whose rows carry `id` and `version`: updates compare and set on the version. */
type VersionedTable = 'projects' | 'environments' | 'flags' | 'segments' | 'accounts';

/** Replaces a row's columns when its version is still `expectedVersion`; false when it is not (or the row is gone). */
export async function updateVersioned<T extends VersionedTable>(
  db: SqlContext['db'],
  table: T,
  id: string,
  columns: Partial<Database[T]>,
  expectedVersion: number,
): Promise<boolean> {
  // One query for five tables: Kysely cannot relate a union of tables to their columns, hence `never`.
  const result = await mapUnique(
    db
      .updateTable(table as 'projects')
      .set(columns as never)
      .where('id', '=', id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst(),
  );
  return touchedOne(result);
}

/** Deletes the row with this id; false when there was none, so of two racing deletes one wins. */
export async function deleteById(
  db: SqlContext['db'],
  table: VersionedTable | 'invitations' | 'sessions',
  id: string,
): Promise<boolean> {
  return touchedOne(
    await db
      .deleteFrom(table as 'projects')
      .where('id', '=', id)
      .executeTakeFirst(),
  );
}

/** Every row of one project's table, in the order given (creation order is id order). */
export function allOfProject<T extends 'environments' | 'flags' | 'segments'>(
  db: SqlContext['db'],
  table: T,
  projectId: string,
  order: 'id' | 'key',
): Promise<Database[T][]> {
  return db
    .selectFrom(table as 'flags')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy(order)
    .execute() as Promise<Database[T][]>;
}
