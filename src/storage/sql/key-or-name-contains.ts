import { type RawBuilder, sql } from 'kysely';

/**
 * The lists' text search (`?q=`, flags and segments): the row's key or name contains `text`,
 * ignoring case, with LIKE's wildcards in it taken literally. Lowered by the database on both
 * sides: SQLite's lower() folds ASCII only, so lowering the text in JavaScript made names with
 * capitals such as 'Ä' unfindable there.
 */
export function keyOrNameContains(text: string): RawBuilder<boolean> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const contains = (column: string) => sql`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
  return sql<boolean>`(${contains('key')} or ${contains('name')})`;
}
