import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/**
 * Measured releases (SPEC §13): tracking events, exposures and metric definitions.
 *
 * `events` name their project and environment by id and key without a foreign key, as insights
 * do: an insert checks nothing but its own key, and a batch never fails because a project went
 * meanwhile. An event's key holds its day (of its timestamp, since the epoch) so that on
 * PostgreSQL the table is partitioned by day (decision 1920): retention drops a day's partition
 * instead of deleting rows. The partitions themselves are made by the store ahead of time
 * (`prepareDays`), never here, so that this migration runs the same statements on any date.
 * On SQLite an index on the day lets retention delete in bounded batches.
 */
export const eventsAndMetrics: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await createTable(
      db,
      'events',
      `project_id text not null, environment text not null, day integer not null, id text not null,
      name text not null, unit text not null, at text not null, value real, context text not null,
      details text`,
    )
      .addPrimaryKeyConstraint('events_pk', ['project_id', 'environment', 'day', 'id'])
      .modifyEnd(postgres ? sql`partition by range (day)` : sql``)
      .execute();
    // No other index: each would cost every insert (a second one halves SQLite's rate), and reads
    // go by project, environment and day, the key's prefix. Results come from per-unit aggregates.
    if (!postgres) await createIndex(db, 'events_day', 'events', ['day']);

    await createTable(
      db,
      'exposures',
      `project_id text not null, environment text not null, experiment text not null, unit text not null,
      variant text not null, first_at text not null, multiple integer not null`,
    )
      .addPrimaryKeyConstraint('exposures_pk', ['project_id', 'experiment', 'unit'])
      .execute();

    await createTable(
      db,
      'metrics',
      `id text primary key, project_id text not null references projects.id cascade, key text not null,
      name text not null, description text not null, event text not null, kind text not null,
      window_hours integer not null, goal text not null, version integer not null,
      created_at text not null, updated_at text not null`,
    ).execute();
    await createIndex(db, 'metrics_project_key', 'metrics', ['project_id', 'key'], { unique: true });
  },
};
