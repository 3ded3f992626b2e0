import type { Kysely, Migration } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/** Webhooks, their outbox of deliveries (written in the write's transaction) and every attempt (docs/product.md §9). */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    // `next_position`: the position the next delivery gets. Taking it locks the row, so
    // deliveries queue in commit order.
    await createTable(
      db,
      'webhooks',
      `id text primary key, project_id text not null references projects.id cascade, url text not null,
      events text not null, secret text not null, active integer not null, next_position integer not null,
      version integer not null, created_at text not null, updated_at text not null`,
    ).execute();
    await createIndex(db, 'webhooks_project', 'webhooks', ['project_id']);

    await createTable(
      db,
      'webhook_deliveries',
      `id text primary key, webhook_id text not null references webhooks.id cascade,
      position integer not null, event text not null, payload text not null, redelivery_of text,
      state text not null, attempts integer not null, next_attempt_at text not null, lease_owner text,
      lease_until text, created_at text not null, finished_at text`,
    ).execute();
    await createIndex(db, 'webhook_deliveries_queue', 'webhook_deliveries', [
      'webhook_id',
      'state',
      'position',
    ]);

    await createTable(
      db,
      'webhook_attempts',
      `id text primary key, delivery_id text not null references webhook_deliveries.id cascade,
      at text not null, node text not null, status_code integer, error text, duration_ms integer not null`,
    ).execute();
    await createIndex(db, 'webhook_attempts_delivery', 'webhook_attempts', ['delivery_id']);
  },
};
