import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  PostgresAdapter,
  sql,
} from 'kysely';

// How migrations declare tables, columns and indexes. Released migrations use these: what they
// build must never change (test/storage/migration-sql.test.ts holds every migration to the
// statements it ran when it was recorded).

/**
 * One column as a migration declares it, in SQL's words: `name type` (`text`, `integer`, or `real`:
 * a double, `double precision` on PostgreSQL) followed by any of
 * `primary key`, `binary` (compared byte by byte: collate "C" on PostgreSQL, SQLite's default),
 * `not null`, `unique`, `default <integer>`, `references <table>.<column>` and `cascade` (on
 * delete). A word it does not know is a mistake in the migration: it throws.
 */
const COLUMN_TYPES = new Set(['text', 'integer', 'real']);

function column(db: Kysely<unknown>, clause: string) {
  const [name, type, ...rest] = clause.trim().split(/\s+/);
  let words = ` ${rest.join(' ')} `;
  const take = (pattern: RegExp): RegExpExecArray | null => {
    const found = pattern.exec(words);
    if (found !== null) words = words.replace(found[0], ' ');
    return found;
  };
  const binary = take(/ binary /) !== null && db.getExecutor().adapter instanceof PostgresAdapter;
  const primaryKey = take(/ primary key /) !== null;
  const notNull = take(/ not null /) !== null;
  const unique = take(/ unique /) !== null;
  const defaultTo = take(/ default (\d+) /)?.[1];
  const references = take(/ references (\S+) /)?.[1];
  const cascade = take(/ cascade /) !== null;
  if (name === undefined || !COLUMN_TYPES.has(type ?? '') || words.trim() !== '') {
    throw new Error(`A migration declares a column Flagstaff cannot read: "${clause.trim()}".`);
  }
  // SQLite's real is 8 bytes; PostgreSQL's is 4, so a double is spelled out there.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const dataType = type === 'real' && postgres ? 'double precision' : (type as 'text' | 'integer' | 'real');
  const build = (c: ColumnDefinitionBuilder) => {
    let built = binary ? c.modifyFront(sql`collate "C"`) : c;
    if (primaryKey) built = built.primaryKey();
    if (notNull) built = built.notNull();
    if (unique) built = built.unique();
    if (defaultTo !== undefined) built = built.defaultTo(Number(defaultTo));
    if (references !== undefined) built = built.references(references);
    return cascade ? built.onDelete('cascade') : built;
  };
  return [name, dataType, build] as const;
}

/** `create table` with columns declared as `column` reads them, comma-separated; chain constraints before `execute`. */
export function createTable(
  db: Kysely<unknown>,
  table: string,
  columns: string,
): CreateTableBuilder<string, string> {
  let builder: CreateTableBuilder<string, string> = db.schema.createTable(table);
  for (const clause of columns.split(',')) builder = builder.addColumn(...column(db, clause));
  return builder;
}

/** Adds columns to a table, one `alter table` each. */
export async function addColumns(db: Kysely<unknown>, table: string, columns: string): Promise<void> {
  for (const clause of columns.split(',')) {
    await db.schema
      .alterTable(table)
      .addColumn(...column(db, clause))
      .execute();
  }
}

/** `create [unique] index name on table (columns)`. */
export async function createIndex(
  db: Kysely<unknown>,
  name: string,
  on: string,
  columns: readonly string[],
  options: { readonly unique?: boolean } = {},
): Promise<void> {
  const index = db.schema
    .createIndex(name)
    .on(on)
    .columns([...columns]);
  await (options.unique ? index.unique() : index).execute();
}
