import type { Kysely, Migration } from 'kysely';

const text = 'text' as const;
const integer = 'integer' as const;

/** Webhooks, their outbox of deliveries (written in the write's transaction) and every attempt (docs/product.md §9). */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('url', text, (c) => c.notNull())
      .addColumn('events', text, (c) => c.notNull())
      .addColumn('secret', text, (c) => c.notNull())
      .addColumn('active', integer, (c) => c.notNull())
      // The position the next delivery gets: taking it locks the row, so deliveries queue in commit order.
      .addColumn('next_position', integer, (c) => c.notNull())
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhooks_project').on('webhooks').column('project_id').execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('webhook_id', text, (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('position', integer, (c) => c.notNull())
      .addColumn('event', text, (c) => c.notNull())
      .addColumn('payload', text, (c) => c.notNull())
      .addColumn('redelivery_of', text)
      .addColumn('state', text, (c) => c.notNull())
      .addColumn('attempts', integer, (c) => c.notNull())
      .addColumn('next_attempt_at', text, (c) => c.notNull())
      .addColumn('lease_owner', text)
      .addColumn('lease_until', text)
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('finished_at', text)
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_queue')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'state', 'position'])
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('delivery_id', text, (c) =>
        c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
      )
      .addColumn('at', text, (c) => c.notNull())
      .addColumn('node', text, (c) => c.notNull())
      .addColumn('status_code', integer)
      .addColumn('error', text)
      .addColumn('duration_ms', integer, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_attempts_delivery')
      .on('webhook_attempts')
      .column('delivery_id')
      .execute();
  },
};
