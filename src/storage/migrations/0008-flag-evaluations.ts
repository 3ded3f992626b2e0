import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/**
 * Evaluation counts for insights (docs/product.md §10): minute buckets kept 30 days, and per variant the
 * first and last minute it was served, kept as long as the flag (small: flags × environments × variants).
 * Rows name the flag by project and key, not by a foreign key: a flush must never fail because a
 * flag was deleted meanwhile, and reads ignore minutes before the flag's creation.
 */
export const flagEvaluations: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    // The primary key is the index the insights query needs: one flag, one environment, a range of minutes.
    // On SQLite WITHOUT ROWID stores the rows in that index instead of twice.
    const withoutRowid = postgres ? sql`` : sql`without rowid`;
    await createTable(
      db,
      'flag_evaluation_counts',
      `project_id text not null, flag_key text not null, environment text not null, minute integer not null,
      variant text not null, reason text not null, count integer not null`,
    )
      .addPrimaryKeyConstraint('flag_evaluation_counts_pk', [
        'project_id',
        'flag_key',
        'environment',
        'minute',
        'variant',
        'reason',
      ])
      .modifyEnd(withoutRowid)
      .execute();
    // Pruning deletes by age alone.
    await createIndex(db, 'flag_evaluation_counts_minute', 'flag_evaluation_counts', ['minute']);

    await createTable(
      db,
      'flag_variant_usage',
      `project_id text not null, flag_key text not null, environment text not null, variant text not null,
      first_minute integer not null, last_minute integer not null`,
    )
      .addPrimaryKeyConstraint('flag_variant_usage_pk', ['project_id', 'environment', 'flag_key', 'variant'])
      .execute();
  },
};
