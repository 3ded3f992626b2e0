import type { Kysely, Migration } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/** Dashboard accounts, their one-time invitations and their sessions (docs/product.md §7). */
export const accounts: Migration = {
  async up(db: Kysely<unknown>) {
    await createTable(
      db,
      'accounts',
      `id text primary key, email text not null unique, name text not null, password_hash text not null,
      role text not null, project_id text references projects.id cascade, created_at text not null,
      last_login_at text`,
    ).execute();

    await createTable(
      db,
      'invitations',
      `id text primary key, email text, role text not null, project_id text references projects.id cascade,
      token_hash text not null unique, invited_by text not null, created_at text not null,
      expires_at text not null, accepted_at text`,
    ).execute();

    await createTable(
      db,
      'sessions',
      `id text primary key, token_hash text not null unique,
      account_id text not null references accounts.id cascade, created_at text not null, expires_at text not null`,
    ).execute();
    await createIndex(db, 'sessions_account', 'sessions', ['account_id']);
  },
};
