import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { addColumns, createIndex } from './schema.ts';

/**
 * Account self-service (decisions 1004–1006): the audit log can be filtered by who acted, and an account's
 * password reset links (table from 0007) are found by account when a newer one replaces them.
 */
export const accountSelfService: Migration = {
  async up(db: Kysely<unknown>) {
    // The actor stays whole in the `actor` JSON; its id is copied out so a filter can use an index.
    await addColumns(db, 'audit_events', 'actor_id text');
    await copyActorIds(db);
    await createIndex(db, 'audit_events_actor', 'audit_events', ['actor_id', 'id']);

    await createIndex(db, 'password_resets_account', 'password_resets', ['account_id']);
  },
};

/** Fills `actor_id` from the `actor` JSON of the events recorded before the column existed. */
export async function copyActorIds(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`update audit_events set actor_id = (actor::json)->>'id' where actor_id is null`.execute(db);
  } else {
    await sql`update audit_events set actor_id = json_extract(actor, '$.id') where actor_id is null`.execute(
      db,
    );
  }
}
