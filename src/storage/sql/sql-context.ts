import { type Kysely, PostgresAdapter, type SelectQueryBuilder, sql, type Transaction } from 'kysely';
import { type Page, type PageRequest, UniqueViolation } from '../store.ts';
import type { Database } from './database.ts';

/**
 * What every aggregate's queries share: the connection (or open transaction), whether it is
 * PostgreSQL, and a way to make several statements atomic.
 */
export interface SqlContext {
  readonly db: Kysely<Database> | Transaction<Database>;
  readonly postgres: boolean;
  /** Joins the open transaction or starts one: methods of several statements must still be atomic. */
  atomically<T>(work: (context: SqlContext) => Promise<T>): Promise<T>;
  /** In the open transaction, `work` behind a savepoint: undone alone when it throws (Transactional.savepoint). */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
}

/** Savepoint names, unique within any transaction (nested ones included). */
let savepoints = 0;

async function behindSavepoint<T>(db: Transaction<Database> | Kysely<Database>, work: () => Promise<T>) {
  const name = sql.id(`sp_${++savepoints}`);
  await sql`savepoint ${name}`.execute(db);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    // Undoes only what `work` wrote; on PostgreSQL this also clears the failed state a refused statement left.
    await sql`rollback to savepoint ${name}`.execute(db);
    await sql`release savepoint ${name}`.execute(db);
    throw error;
  }
  await sql`release savepoint ${name}`.execute(db);
  return result;
}

export function sqlContext(db: Kysely<Database> | Transaction<Database>, inTransaction = false): SqlContext {
  const context: SqlContext = {
    db,
    postgres: db.getExecutor().adapter instanceof PostgresAdapter,
    atomically: (work) =>
      inTransaction ? work(context) : db.transaction().execute((trx) => work(sqlContext(trx, true))),
    savepoint: (work) => (inTransaction ? behindSavepoint(db, work) : context.atomically(() => work())),
  };
  return context;
}

/**
 * Row locks for reads that precede a write. Only PostgreSQL needs them: SQLite runs one
 * transaction at a time on its one connection, so nothing can change between read and write.
 */
export function locked<Q extends { forUpdate(): Q; forShare(): Q }>(
  context: SqlContext,
  query: Q,
  mode: 'update' | 'share' | undefined,
): Q {
  if (!context.postgres || mode === undefined) return query;
  return mode === 'update' ? query.forUpdate() : query.forShare();
}

/** SQLite reports SQLITE_CONSTRAINT_UNIQUE (2067) or _PRIMARYKEY (1555); PostgreSQL 23505. */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { errcode?: number; code?: string };
  return e?.errcode === 2067 || e?.errcode === 1555 || e?.code === '23505';
}

/** Runs a write, turning the database's own uniqueness error into the port's UniqueViolation. */
export async function mapUnique<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isUniqueViolation(error)) throw new UniqueViolation((error as Error).message);
    throw error;
  }
}

/** True when an update or delete touched exactly one row (the write's compare-and-set or existence check). */
export const touchedOne = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): boolean =>
  Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0) === 1;

/** One row mapped to its domain object, or undefined. */
export async function findOne<Row, T>(
  // biome-ignore lint/suspicious/noExplicitAny: the query's table is whatever the caller selected from
  query: SelectQueryBuilder<Database, any, Row>,
  fromRow: (row: Row) => T,
): Promise<T | undefined> {
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

export const encodeCursor = (value: string) => Buffer.from(value).toString('base64url');
export const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString();

type Direction = 'asc' | 'desc';
const reversed = (direction: Direction): Direction => (direction === 'asc' ? 'desc' : 'asc');
/** The comparison that keeps the rows after (`ahead`) or before (`behind`) a key in the list's order. */
const comparison = (direction: Direction, ahead: boolean) => ((direction === 'asc') === ahead ? '>' : '<');

/**
 * Keyset paging over one unique text column: fetch one more than asked to learn whether more remain.
 * `before` reads the rows just before a key in reverse and turns them round; `counted` counts the
 * matching rows as well, in one more query (docs/decisions/1800-paged-lists.md).
 */
export async function paged<Row, T>(
  // biome-ignore lint/suspicious/noExplicitAny: the query's table is whatever the caller selected from
  query: SelectQueryBuilder<Database, any, Row>,
  order: { readonly column: string; readonly direction: Direction; readonly of: (row: Row) => string },
  page: PageRequest,
  map: (rows: Row[]) => Promise<T[]> | T[],
): Promise<Page<T>> {
  const { column, direction } = order;
  const backward = !page.cursor && Boolean(page.before);
  let q = query;
  if (page.cursor) q = q.where(sql.ref(column), comparison(direction, true), decodeCursor(page.cursor));
  else if (page.before) q = q.where(sql.ref(column), comparison(direction, false), decodeCursor(page.before));
  const rows = await q
    .orderBy(sql.ref(column), backward ? reversed(direction) : direction)
    .limit(page.limit + 1)
    .execute();
  const more = rows.length > page.limit;
  // Less than a page before `before` is the start of the list: answer its first page, full.
  if (backward && !more) return paged(query, order, { limit: page.limit, counted: page.counted }, map);
  const kept = more ? rows.slice(0, page.limit) : rows;
  if (backward) kept.reverse();
  const items = await map(kept);
  const first = kept[0];
  const last = kept.at(-1);
  if (!page.counted) {
    return (more || backward) && last !== undefined
      ? { items, nextCursor: encodeCursor(order.of(last)) }
      : { items };
  }
  const firstPage = !page.cursor && !backward;
  const { total, offset } = await countAround(
    query,
    order,
    first === undefined || firstPage ? undefined : order.of(first),
  );
  const after = first === undefined && page.cursor ? total : offset;
  return {
    items,
    total,
    offset: after,
    ...(after + kept.length < total && last !== undefined
      ? { nextCursor: encodeCursor(order.of(last)) }
      : {}),
    ...(after > 0 && first !== undefined ? { previousCursor: encodeCursor(order.of(first)) } : {}),
  };
}

/**
 * How many rows the query matches, and how many of them come before `firstKey` in the list's order
 * (none on a first page): two counts, each a range of the list's index when no filter gets in the way.
 */
async function countAround<Row>(
  // biome-ignore lint/suspicious/noExplicitAny: as in `paged`
  query: SelectQueryBuilder<Database, any, Row>,
  order: { readonly column: string; readonly direction: Direction },
  firstKey: string | undefined,
): Promise<{ total: number; offset: number }> {
  // biome-ignore lint/suspicious/noExplicitAny: as in `paged`
  const count = async (q: SelectQueryBuilder<Database, any, Row>) => {
    const row = await q
      .clearSelect()
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return Number((row as { n?: number | string | bigint } | undefined)?.n ?? 0);
  };
  const total = await count(query);
  if (firstKey === undefined) return { total, offset: 0 };
  const before = query.where(sql.ref(order.column), comparison(order.direction, false), firstKey);
  return { total, offset: await count(before) };
}

/**
 * Marks a one-time link used at `at` unless it already was: false when another request used it
 * first, so of two racing uses one wins.
 */
export async function useOnce(
  db: SqlContext['db'],
  link:
    | { table: 'invitations'; usedColumn: 'accepted_at' }
    | { table: 'password_resets'; usedColumn: 'used_at' },
  id: string,
  at: string,
): Promise<boolean> {
  const { table, usedColumn } = link as { table: 'invitations'; usedColumn: 'accepted_at' };
  const result = await db
    .updateTable(table)
    .set({ [usedColumn]: at })
    .where('id', '=', id)
    .where(usedColumn, 'is', null)
    .executeTakeFirst();
  return touchedOne(result);
}
