import type { Kysely, Migration } from 'kysely';

/** Accounts get the version every other updatable resource has, so their updates compare and set. */
export const accountVersion: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('accounts')
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
};
