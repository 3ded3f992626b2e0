import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

const text = 'text' as const;
const integer = 'integer' as const;

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
    await db.schema
      .createTable('flag_evaluation_counts')
      .addColumn('project_id', text, (c) => c.notNull())
      .addColumn('flag_key', text, (c) => c.notNull())
      .addColumn('environment', text, (c) => c.notNull())
      .addColumn('minute', integer, (c) => c.notNull())
      .addColumn('variant', text, (c) => c.notNull())
      .addColumn('reason', text, (c) => c.notNull())
      .addColumn('count', integer, (c) => c.notNull())
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
    await db.schema
      .createIndex('flag_evaluation_counts_minute')
      .on('flag_evaluation_counts')
      .column('minute')
      .execute();

    await db.schema
      .createTable('flag_variant_usage')
      .addColumn('project_id', text, (c) => c.notNull())
      .addColumn('flag_key', text, (c) => c.notNull())
      .addColumn('environment', text, (c) => c.notNull())
      .addColumn('variant', text, (c) => c.notNull())
      .addColumn('first_minute', integer, (c) => c.notNull())
      .addColumn('last_minute', integer, (c) => c.notNull())
      .addPrimaryKeyConstraint('flag_variant_usage_pk', ['project_id', 'environment', 'flag_key', 'variant'])
      .execute();
  },
};
