import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/**
 * The insights query (one flag, one environment, 30 days) answered from the primary key alone on
 * PostgreSQL (decision 1055). PostgreSQL keeps rows in a heap in the order they were written, and
 * counting writes minute after minute, so one flag's 43,200 minutes of a month lie on as many heap
 * pages; reading them was ~0.6 s at 1,000 flags. With `count` carried in the key's index
 * (INCLUDE: stored, not part of uniqueness, so the flush's ON CONFLICT is unchanged) the query is an
 * index-only scan over a few hundred adjacent pages. Index-only scans skip the heap only for pages
 * VACUUM marked all-visible, so autovacuum visits this table after 1 % of new or changed rows
 * rather than the default 20 %. SQLite stores the table in its key already (WITHOUT ROWID).
 */
export const insightsIndexOnlyScan: Migration = {
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`alter table flag_evaluation_counts
      drop constraint flag_evaluation_counts_pk,
      add constraint flag_evaluation_counts_pk
        primary key (project_id, flag_key, environment, minute, variant, reason) include (count)`.execute(db);
    await sql`alter table flag_evaluation_counts set
      (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01)`.execute(db);
  },
};
