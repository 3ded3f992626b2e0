import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema.ts';

/** Accounts get the version every other updatable resource has, so their updates compare and set. */
export const accountVersion: Migration = {
  async up(db: Kysely<unknown>) {
    await addColumns(db, 'accounts', 'version integer not null default 1');
  },
};
