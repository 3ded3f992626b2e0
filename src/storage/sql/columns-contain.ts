import { type RawBuilder, sql } from 'kysely';

/**
 * The lists' text search (`?q=`): one of the row's `columns` contains `text`, ignoring case, with
 * LIKE's wildcards in it taken literally. Lowered by the database on both sides: SQLite's lower()
 * folds ASCII only, so lowering the text in JavaScript made names with capitals such as 'Ä'
 * unfindable there.
 */
export function columnsContain(columns: readonly string[], text: string): RawBuilder<boolean> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const contains = (column: string) => sql`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
  return sql<boolean>`(${sql.join(columns.map(contains), sql` or `)})`;
}

/** Flags' and segments' search: the key or the name contains `text` (decision 1844). */
export const keyOrNameContains = (text: string) => columnsContain(['key', 'name'], text);

/** Accounts' search: the email or the name contains `text` (decision 1846). */
export const emailOrNameContains = (text: string) => columnsContain(['email', 'name'], text);
