import { Kysely, sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { NodeSqliteDialect, openNodeSqlite } from './node-sqlite-database.ts';

// node:sqlite answers synchronously: what a write's statements give way to (decision 2095).
let db: Kysely<{ notes: { id: number; text: string } }> | undefined;

afterEach(async () => {
  await db?.destroy();
  db = undefined;
});

it('gives the event loop a turn before each statement, so evaluations are served between a write’s statements', async () => {
  db = new Kysely({ dialect: new NodeSqliteDialect(openNodeSqlite(':memory:')) });
  await sql`create table notes (id integer primary key, text text not null)`.execute(db);
  let turns = 0;
  let writing = true;
  const countTurns = () => {
    turns++;
    if (writing) setImmediate(countTurns);
  };
  setImmediate(countTurns);
  await db.transaction().execute(async (tx) => {
    for (let id = 1; id <= 10; id++)
      await tx
        .insertInto('notes')
        .values({ id, text: `note ${id}` })
        .execute();
  });
  writing = false;
  // begin, ten inserts and commit: twelve statements, each after a turn others could use.
  expect(turns).toBeGreaterThanOrEqual(12);
  expect(await db.selectFrom('notes').select(sql<number>`count(*)`.as('n')).executeTakeFirst()).toEqual({
    n: 10,
  });
});
