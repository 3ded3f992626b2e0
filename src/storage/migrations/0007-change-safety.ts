import type { Kysely, Migration } from 'kysely';
import { addColumns, createIndex, createTable } from './schema.ts';

/**
 * Change safety (docs/product.md §10): scheduled changes, approval policies and change requests, one-time
 * password reset links, and a `details` column on audit events (a scheduled write's delay).
 */
export const changeSafety: Migration = {
  async up(db: Kysely<unknown>) {
    await addColumns(db, 'audit_events', 'details text');

    // A flag patch kept to be written later, by its author: what both pending kinds share.
    const pendingPatch = `id text primary key, project_id text not null references projects.id cascade,
      flag_id text not null references flags.id cascade, environment text not null, patch text not null,
      comment text not null`;
    await createTable(
      db,
      'scheduled_changes',
      `${pendingPatch}, at text not null, status text not null, author text not null,
      created_at text not null, applied_at text, failure text`,
    ).execute();
    // The scheduler's question, "what is due?", reads pending changes in time order.
    await createIndex(db, 'scheduled_changes_due', 'scheduled_changes', ['status', 'at']);
    await createIndex(db, 'scheduled_changes_flag', 'scheduled_changes', ['flag_id', 'at']);

    // Beside the environment rather than in it: the policy is its own concern, written by its own route.
    await createTable(
      db,
      'approval_policies',
      'environment_id text primary key references environments.id cascade, required_approvals integer not null',
    ).execute();

    await createTable(
      db,
      'change_requests',
      `${pendingPatch}, base_version integer not null, required_approvals integer not null,
      author text not null, status text not null, approvals text not null, decided_by text, failure text,
      version integer not null, created_at text not null, updated_at text not null`,
    ).execute();
    await createIndex(db, 'change_requests_project', 'change_requests', ['project_id', 'status', 'id']);

    await createTable(
      db,
      'password_resets',
      `id text primary key, account_id text not null references accounts.id cascade,
      token_hash text not null unique, created_by text not null, created_at text not null,
      expires_at text not null, used_at text`,
    ).execute();
  },
};
