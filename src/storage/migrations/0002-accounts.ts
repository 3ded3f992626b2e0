import type { Kysely, Migration } from 'kysely';

const text = 'text' as const;

/** Dashboard accounts, their one-time invitations and their sessions (docs/product.md §7). */
export const accounts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('email', text, (c) => c.notNull().unique())
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('password_hash', text, (c) => c.notNull())
      .addColumn('role', text, (c) => c.notNull())
      .addColumn('project_id', text, (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('last_login_at', text)
      .execute();

    await db.schema
      .createTable('invitations')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('email', text)
      .addColumn('role', text, (c) => c.notNull())
      .addColumn('project_id', text, (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('token_hash', text, (c) => c.notNull().unique())
      .addColumn('invited_by', text, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('expires_at', text, (c) => c.notNull())
      .addColumn('accepted_at', text)
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('token_hash', text, (c) => c.notNull().unique())
      .addColumn('account_id', text, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('expires_at', text, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
  },
};
