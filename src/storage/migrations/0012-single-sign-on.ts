import type { Kysely, Migration } from 'kysely';

/**
 * Single sign-on and SCIM deprovisioning (decisions 1720, 1721): an account may be bound to an
 * identity provider's (issuer, subject), deactivated, and known by the provider's SCIM id; a
 * sign-in in progress waits in `oidc_sign_ins` until the provider sends the person back.
 */
export const singleSignOn: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('accounts')
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.alterTable('accounts').addColumn('oidc_issuer', 'text').execute();
    await db.schema.alterTable('accounts').addColumn('oidc_subject', 'text').execute();
    // The mapped roles of the last sign-in, as JSON, for the Members page.
    await db.schema.alterTable('accounts').addColumn('sso_roles', 'text').execute();
    await db.schema.alterTable('accounts').addColumn('external_id', 'text').execute();
    await db.schema
      .createIndex('accounts_oidc_subject')
      .on('accounts')
      .columns(['oidc_issuer', 'oidc_subject'])
      .unique()
      .execute();

    await db.schema
      .createTable('oidc_sign_ins')
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('browser_hash', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('return_to', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
  },
};
