import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema.ts';

/**
 * A webhook's format (issue 39): null is JSON, as every webhook before it; `slack` is sent each
 * event as a Block Kit message. A column of its own migration: 0022 was merged before Slack was.
 */
export const webhookFormat: Migration = {
  async up(db: Kysely<unknown>) {
    await addColumns(db, 'webhooks', 'format text');
  },
};
