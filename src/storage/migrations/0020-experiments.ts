import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/**
 * Experiments (SPEC §13) and the per-unit aggregates their results read (decision 1941).
 *
 * The aggregates are folded from events and exposures in the order they arrived, so each needs a
 * position that only grows. SQLite has one already: the rowid of a table that rows are only
 * appended to. On PostgreSQL a sequence would not do (a number taken by a transaction that
 * commits later than a higher one would be skipped); `tx` holds the inserting transaction's id,
 * and the fold reads only transactions older than every one still running.
 */
export const experiments: Migration = {
  async up(db: Kysely<unknown>) {
    await createTable(
      db,
      'experiments',
      `id text primary key, project_id text not null references projects.id cascade, key text not null,
      name text not null, description text not null, flag text not null, environment text not null,
      control text not null, treatments text not null, metrics text not null, analysis text not null,
      cuped integer not null, status text not null, started_at text, stopped_at text,
      version integer not null, created_at text not null, updated_at text not null`,
    ).execute();
    await createIndex(db, 'experiments_project_key', 'experiments', ['project_id', 'key'], { unique: true });

    // The units a comparison (an experiment, a release plan) has taken in, as the fold saw them first.
    await createTable(
      db,
      'comparison_units',
      `project_id text not null, comparison text not null, unit text not null, variant text not null,
      first_at text not null`,
    )
      .addPrimaryKeyConstraint('comparison_units_pk', ['project_id', 'comparison', 'unit'])
      .execute();
    // Per unit and metric: events in its window (count, Σ value), and before exposure (CUPED's covariate).
    await createTable(
      db,
      'comparison_metric_units',
      `project_id text not null, comparison text not null, metric_id text not null, unit text not null,
      variant text not null, count real not null, sum real not null, pre_count real not null,
      pre_sum real not null`,
    )
      .addPrimaryKeyConstraint('comparison_metric_units_pk', [
        'project_id',
        'comparison',
        'metric_id',
        'unit',
      ])
      .execute();
    // Metric events per unit and day, whoever is exposed: a unit exposed later finds its pre-exposure days here.
    await createTable(
      db,
      'unit_event_days',
      `project_id text not null, environment text not null, event text not null, unit text not null,
      day integer not null, count real not null, sum real not null`,
    )
      .addPrimaryKeyConstraint('unit_event_days_pk', ['project_id', 'environment', 'event', 'unit', 'day'])
      .execute();
    // Where the fold is: one row, moved by compare-and-set, so exactly one node folds each stretch.
    await createTable(
      db,
      'fold_cursors',
      'name text primary key, events text not null, exposures text not null, version integer not null',
    ).execute();
    // Per hour: each variant's sums, for the effect over time.
    await createTable(
      db,
      'comparison_snapshots',
      `project_id text not null, comparison text not null, metric_id text not null, hour integer not null,
      variants text not null`,
    )
      .addPrimaryKeyConstraint('comparison_snapshots_pk', ['project_id', 'comparison', 'metric_id', 'hour'])
      .execute();

    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      for (const table of ['events', 'exposures']) {
        await sql`alter table ${sql.id(table)} add column tx bigint not null default (pg_current_xact_id()::text::bigint)`.execute(
          db,
        );
        await createIndex(db, `${table}_tx`, table, ['tx']);
      }
    }
  },
};
