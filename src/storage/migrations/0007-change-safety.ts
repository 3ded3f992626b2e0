import type { Kysely, Migration } from 'kysely';

const text = 'text' as const;
const integer = 'integer' as const;

/**
 * Change safety (docs/product.md §10): scheduled changes, approval policies and change requests, one-time
 * password reset links, and a `details` column on audit events (a scheduled write's delay).
 */
export const changeSafety: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('audit_events').addColumn('details', text).execute();

    await db.schema
      .createTable('scheduled_changes')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('flag_id', text, (c) => c.notNull().references('flags.id').onDelete('cascade'))
      .addColumn('environment', text, (c) => c.notNull())
      .addColumn('patch', text, (c) => c.notNull())
      .addColumn('comment', text, (c) => c.notNull())
      .addColumn('at', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('author', text, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('applied_at', text)
      .addColumn('failure', text)
      .execute();
    // The scheduler's question, "what is due?", reads pending changes in time order.
    await db.schema
      .createIndex('scheduled_changes_due')
      .on('scheduled_changes')
      .columns(['status', 'at'])
      .execute();
    await db.schema
      .createIndex('scheduled_changes_flag')
      .on('scheduled_changes')
      .columns(['flag_id', 'at'])
      .execute();

    // Beside the environment rather than in it: the policy is its own concern, written by its own route.
    await db.schema
      .createTable('approval_policies')
      .addColumn('environment_id', text, (c) =>
        c.primaryKey().references('environments.id').onDelete('cascade'),
      )
      .addColumn('required_approvals', integer, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('change_requests')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('flag_id', text, (c) => c.notNull().references('flags.id').onDelete('cascade'))
      .addColumn('environment', text, (c) => c.notNull())
      .addColumn('patch', text, (c) => c.notNull())
      .addColumn('comment', text, (c) => c.notNull())
      .addColumn('base_version', integer, (c) => c.notNull())
      .addColumn('required_approvals', integer, (c) => c.notNull())
      .addColumn('author', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('approvals', text, (c) => c.notNull())
      .addColumn('decided_by', text)
      .addColumn('failure', text)
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('change_requests_project')
      .on('change_requests')
      .columns(['project_id', 'status', 'id'])
      .execute();

    await db.schema
      .createTable('password_resets')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('account_id', text, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('token_hash', text, (c) => c.notNull().unique())
      .addColumn('created_by', text, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('expires_at', text, (c) => c.notNull())
      .addColumn('used_at', text)
      .execute();
  },
};
