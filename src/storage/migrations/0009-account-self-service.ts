import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/**
 * Account self-service (decisions 1004–1006): the audit log can be filtered by who acted, and an account's
 * password reset links (table from 0007) are found by account when a newer one replaces them.
 */
export const accountSelfService: Migration = {
  async up(db: Kysely<unknown>) {
    // The actor stays whole in the `actor` JSON; its id is copied out so a filter can use an index.
    await db.schema.alterTable('audit_events').addColumn('actor_id', 'text').execute();
    await copyActorIds(db);
    await db.schema
      .createIndex('audit_events_actor')
      .on('audit_events')
      .columns(['actor_id', 'id'])
      .execute();

    await db.schema
      .createIndex('password_resets_account')
      .on('password_resets')
      .column('account_id')
      .execute();
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
