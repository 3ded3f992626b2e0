import type { Kysely, Migration } from 'kysely';
import { addColumns, createIndex, createTable } from './schema.ts';

/**
 * Identities that end cleanly (decisions 1890, 1891). A session records whether a password
 * started it, so turning password sign-in off ends those sessions at the next start; the ones
 * started before this migration count as password sessions (the safe side). SCIM Groups: a
 * group the identity provider pushes, named as its claim value would be, and its members.
 */
export const scimGroupsAndSessionOrigin: Migration = {
  async up(db: Kysely<unknown>) {
    await addColumns(db, 'sessions', 'by_password integer not null default 1');

    await createTable(
      db,
      'provisioned_groups',
      `id text primary key, display_name text not null binary unique, external_id text,
      version integer not null, created_at text not null, updated_at text not null`,
    ).execute();
    await createTable(
      db,
      'provisioned_group_members',
      `group_id text not null references provisioned_groups.id cascade,
      account_id text not null references accounts.id cascade`,
    )
      .addPrimaryKeyConstraint('provisioned_group_members_pk', ['group_id', 'account_id'])
      .execute();
    // An account's groups, read at every sign-in and whenever a group of it changes.
    await createIndex(db, 'provisioned_group_members_account', 'provisioned_group_members', ['account_id']);
  },
};
