import type { Page, PageRequest } from '../../domain/page.ts';
import type { ProjectKeyedStore } from '../project-keyed-store.ts';
import type { Database } from './database.ts';
import { findOne, mapUnique, paged, type SqlContext, touchedOne } from './sql-context.ts';

// What the tables of versioned resources share (projects, environments, flags, segments,
// accounts, metrics, experiments, release templates and plans): the compare-and-set update, the
// delete that says whether it deleted, every row of one project, the rows of some statuses, and
// the five queries of a resource keyed in its project.

/** Tables of resources keyed in their project whose rows are the resource (no side tables). */
type ProjectKeyedTable = 'metrics' | 'experiments' | 'release_templates';

/** Tables whose rows carry `id` and `version`: updates compare and set on the version. */
type VersionedTable =
  | 'projects'
  | 'environments'
  | 'flags'
  | 'segments'
  | 'accounts'
  | ProjectKeyedTable
  | 'release_plans';

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

/** Every row of these statuses, of every project, in id order: what a node keeps running. */
export async function withStatus<T extends 'experiments' | 'release_plans', R>(
  db: SqlContext['db'],
  table: T,
  statuses: readonly string[],
  fromRow: (row: Database[T]) => R,
): Promise<R[]> {
  if (statuses.length === 0) return [];
  const rows = await db
    .selectFrom(table as 'experiments')
    .selectAll()
    .where('status', 'in', [...statuses])
    .orderBy('id')
    .execute();
  return (rows as Database[T][]).map(fromRow);
}

/** The rows of one project's table in key order, paged; of one status only where one is asked. */
export function keyedList<T extends ProjectKeyedTable, R>(
  db: SqlContext['db'],
  table: T,
  projectId: string,
  page: PageRequest,
  fromRow: (row: Database[T]) => R,
  status?: string,
): Promise<Page<R>> {
  // One query for three tables: Kysely cannot relate a union of tables to their columns.
  const query = db
    .selectFrom(table as 'experiments')
    .selectAll()
    .where('project_id', '=', projectId);
  return paged(
    status === undefined ? query : query.where('status', '=', status),
    { column: 'key', direction: 'asc', of: (r) => r.key },
    page,
    (rows) => (rows as Database[T][]).map(fromRow),
  );
}

/**
 * The store of a resource keyed in its project whose row is the resource: the list in key order,
 * the read by key, the insert that turns a taken key into UniqueViolation, the versioned update
 * and the delete.
 */
export function projectKeyedRows<T extends ProjectKeyedTable, R extends { readonly id: string }>(
  db: SqlContext['db'],
  table: T,
  toRow: (resource: R) => Database[T],
  fromRow: (row: Database[T]) => R,
): ProjectKeyedStore<R> {
  return {
    list: (projectId, page) => keyedList(db, table, projectId, page, fromRow),
    findByKey: (projectId, key) =>
      findOne(
        db
          .selectFrom(table as 'metrics')
          .selectAll()
          .where('project_id', '=', projectId)
          .where('key', '=', key),
        (row) => fromRow(row as Database[T]),
      ),
    async insert(resource) {
      await mapUnique(
        db
          .insertInto(table as 'metrics')
          .values(toRow(resource) as never)
          .execute(),
      );
    },
    update: (resource, expectedVersion) =>
      updateVersioned(db, table, resource.id, toRow(resource), expectedVersion),
    delete: (id) => deleteById(db, table, id),
  };
}
