import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Exposure } from '../../domain/exposure.ts';
import {
  type AggregateKind,
  type ComparisonAggregateStore,
  type ComparisonSnapshot,
  type ComparisonUnit,
  FOLD_START,
  type FoldEvent,
  type FoldPosition,
  type FoldRead,
  type FoldStep,
  type UnitDayIncrement,
  type UnitDaysQuery,
  type VariantSums,
} from '../comparison-aggregate-store.ts';
import { readByUnits, upsertInChunks } from './chunked.ts';
import type { Database } from './database.ts';

/** The one fold there is (a row of fold_cursors). */
const CURSOR = 'comparisons';

/** Thrown inside the fold's transaction to undo it when another node moved the cursor first. */
class CursorMoved extends Error {}

/** Each kind's per-unit value after and before exposure, from the aggregate's columns. */
const VALUES: Readonly<Record<AggregateKind, { post: RawBuilder<number>; pre: RawBuilder<number> }>> = {
  conversion: {
    post: sql<number>`case when count > 0 then 1 else 0 end`,
    pre: sql<number>`case when pre_count > 0 then 1 else 0 end`,
  },
  count: { post: sql<number>`count`, pre: sql<number>`pre_count` },
  sum: { post: sql<number>`sum`, pre: sql<number>`pre_sum` },
};

/** A row the fold reads: its position (rowid or tx) and the columns its reader names. */
type FoldRow = { position: string | number } & Record<string, string | number | null>;

/** A fold read's window: after `after`, up to `upTo`, at most about `limit` rows. */
interface FoldBounds {
  readonly after: string;
  readonly upTo: string;
  readonly limit: number;
}

/**
 * The ComparisonAggregateStore over Kysely (decision 1941). A position is SQLite's rowid (rows are
 * appended, a statement at a time on its one connection: rowids only grow), or PostgreSQL's `tx`,
 * the inserting transaction's id: the end is the oldest transaction still running, so a row is
 * read only once every transaction that could insert before it has ended.
 */
export class ComparisonAggregateQueries implements ComparisonAggregateStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async foldCursor() {
    const row = await this.#db
      .selectFrom('fold_cursors')
      .selectAll()
      .where('name', '=', CURSOR)
      .executeTakeFirst();
    if (row === undefined) return { position: FOLD_START, version: 0 };
    return { position: { events: row.events, exposures: row.exposures }, version: Number(row.version) };
  }

  async foldEnd(): Promise<FoldPosition> {
    if (this.#postgres) {
      const { rows } = await sql<{ end: string }>`
        select pg_snapshot_xmin(pg_current_snapshot())::text as end`.execute(this.#db);
      const end = rows[0]?.end ?? '0';
      return { events: end, exposures: end };
    }
    const max = async (table: 'events' | 'exposures') => {
      const { rows } = await sql<{
        end: number | null;
      }>`select max(rowid) as end from ${sql.table(table)}`.execute(this.#db);
      return String(rows[0]?.end ?? 0);
    };
    return { events: await max('events'), exposures: await max('exposures') };
  }

  readExposures(after: string, upTo: string, limit: number): Promise<FoldRead<Exposure>> {
    const source = (window: RawBuilder<unknown>) =>
      sql`project_id, environment, experiment, unit, variant, first_at, multiple from exposures where ${window}`;
    return this.#readAfter(source, { after, upTo, limit }, (r) => ({
      projectId: String(r.project_id),
      environment: String(r.environment),
      experiment: String(r.experiment),
      unit: String(r.unit),
      variant: String(r.variant),
      firstAt: Date.parse(String(r.first_at)),
      multiple: Number(r.multiple) === 1,
    }));
  }

  async readEvents(
    after: string,
    upTo: string,
    names: readonly string[],
    limit: number,
  ): Promise<FoldRead<FoldEvent>> {
    if (names.length === 0) return { rows: [], next: upTo, more: false };
    const source = (window: RawBuilder<unknown>) =>
      sql`project_id, environment, name, unit, at, value from events where ${window} and name in (${sql.join(names)})`;
    return this.#readAfter(source, { after, upTo, limit }, (r) => ({
      projectId: String(r.project_id),
      environment: String(r.environment),
      name: String(r.name),
      unit: String(r.unit),
      at: Date.parse(String(r.at)),
      value: r.value === null ? null : Number(r.value),
    }));
  }

  #position(): RawBuilder<unknown> {
    return this.#postgres ? sql.ref('tx') : sql`rowid`;
  }

  /**
   * The rows of `source` (its columns, table and conditions, given the position window to add)
   * after `after` up to `upTo`, in arrival order, each read by `rowOf`; see #positionWindow.
   */
  async #readAfter<T>(
    source: (window: RawBuilder<unknown>) => RawBuilder<unknown>,
    bounds: FoldBounds,
    rowOf: (row: FoldRow) => T,
  ): Promise<FoldRead<T>> {
    const position = this.#position();
    const read = async (window: RawBuilder<unknown>, cap?: number) => {
      const limited = cap === undefined ? sql`` : sql`limit ${cap}`;
      const query = sql<FoldRow>`select ${position} as position, ${source(window)} order by ${position} ${limited}`;
      return (await query.execute(this.#db)).rows;
    };
    const { rows, next, more } = await this.#positionWindow(read, bounds);
    return { rows: rows.map(rowOf), next, more };
  }

  /**
   * Rows after `after` up to `upTo` (none, and `after` again, when `upTo` is not past it). SQLite: rowid > after and ≤ upTo. PostgreSQL: tx ≥ after and
   * < upTo, and a full page stops before its last transaction (whose rows may go on past the page),
   * unless that one transaction fills the page: then all its rows are read.
   */
  async #positionWindow(
    read: (window: RawBuilder<unknown>, cap?: number) => Promise<FoldRow[]>,
    { after, upTo, limit }: FoldBounds,
  ): Promise<{ rows: FoldRow[]; next: string; more: boolean }> {
    const from = Number(after === '' ? 0 : after);
    const to = Number(upTo === '' ? 0 : upTo);
    const position = this.#position();
    // Another node may have folded past this node's end already: never move the cursor back.
    if (to <= from) return { rows: [], next: after, more: false };
    if (!this.#postgres) {
      const rows = await read(sql`${position} > ${from} and ${position} <= ${to}`, limit);
      const full = rows.length >= limit;
      return { rows, next: full ? String(rows.at(-1)?.position) : String(to), more: full };
    }
    const rows = await read(sql`${position} >= ${from} and ${position} < ${to}`, limit);
    if (rows.length < limit) return { rows, next: String(to), more: false };
    const last = Number(rows.at(-1)?.position);
    if (last > from)
      return { rows: rows.filter((r) => Number(r.position) < last), next: String(last), more: true };
    const whole = await read(sql`${position} = ${last}`);
    return { rows: whole, next: String(last + 1), more: true };
  }

  foldedUnits(projectId: string, comparison: string, units: readonly string[]): Promise<ComparisonUnit[]> {
    return readByUnits(
      units,
      (chunk) =>
        this.#db
          .selectFrom('comparison_units')
          .selectAll()
          .where('project_id', '=', projectId)
          .where('comparison', '=', comparison)
          .where('unit', 'in', chunk)
          .execute(),
      (r) => ({ projectId, comparison, unit: r.unit, variant: r.variant, firstAt: Date.parse(r.first_at) }),
    );
  }

  unitDays({
    projectId,
    environment,
    event,
    units,
    fromDay,
    toDay,
  }: UnitDaysQuery): Promise<UnitDayIncrement[]> {
    return readByUnits(
      units,
      (chunk) =>
        this.#db
          .selectFrom('unit_event_days')
          .select(['unit', 'day', 'count', 'sum'])
          .where('project_id', '=', projectId)
          .where('environment', '=', environment)
          .where('event', '=', event)
          .where('unit', 'in', chunk)
          .where('day', '>=', fromDay)
          .where('day', '<', toDay)
          .execute(),
      (r) => ({
        projectId,
        environment,
        event,
        unit: r.unit,
        day: Number(r.day),
        count: Number(r.count),
        sum: Number(r.sum),
      }),
    );
  }

  async applyFold(step: FoldStep, expectedVersion: number): Promise<boolean> {
    try {
      await this.#db.transaction().execute(async (trx) => {
        await moveCursor(trx, step.to, expectedVersion);
        await writeStep(trx, step);
      });
      return true;
    } catch (error) {
      if (error instanceof CursorMoved) return false;
      throw error;
    }
  }

  async unitsByVariant(projectId: string, comparison: string) {
    const rows = await this.#db
      .selectFrom('comparison_units')
      .select(['variant', (eb) => eb.fn.countAll<number>().as('units')])
      .where('project_id', '=', projectId)
      .where('comparison', '=', comparison)
      .groupBy('variant')
      .execute();
    return new Map(rows.map((r) => [r.variant, Number(r.units)]));
  }

  async variantSums(projectId: string, comparison: string, metricId: string, kind: AggregateKind) {
    const { post, pre } = VALUES[kind];
    const { rows } = await sql<{ variant: string } & Record<keyof VariantSums, number | string>>`
      select variant, sum(${post}) as "sum", sum(${post} * ${post}) as "sumSquares",
        sum(${pre}) as "preSum", sum(${pre} * ${pre}) as "preSumSquares", sum(${post} * ${pre}) as "sumProducts"
      from comparison_metric_units
      where project_id = ${projectId} and comparison = ${comparison} and metric_id = ${metricId}
      group by variant`.execute(this.#db);
    return new Map(
      rows.map((r) => [
        r.variant,
        {
          sum: Number(r.sum),
          sumSquares: Number(r.sumSquares),
          preSum: Number(r.preSum),
          preSumSquares: Number(r.preSumSquares),
          sumProducts: Number(r.sumProducts),
        },
      ]),
    );
  }

  async putSnapshot(projectId: string, comparison: string, metricId: string, snapshot: ComparisonSnapshot) {
    await this.#db
      .insertInto('comparison_snapshots')
      .values({
        project_id: projectId,
        comparison,
        metric_id: metricId,
        hour: snapshot.hour,
        variants: JSON.stringify(snapshot.variants),
      })
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'comparison', 'metric_id', 'hour'])
          .doUpdateSet({ variants: sql`excluded.variants` }),
      )
      .execute();
  }

  async listSnapshots(projectId: string, comparison: string, metricId: string) {
    const rows = await this.#db
      .selectFrom('comparison_snapshots')
      .select(['hour', 'variants'])
      .where('project_id', '=', projectId)
      .where('comparison', '=', comparison)
      .where('metric_id', '=', metricId)
      .orderBy('hour')
      .execute();
    return rows.map((r) => ({ hour: Number(r.hour), variants: JSON.parse(r.variants) }));
  }

  async metricEvents() {
    return this.#db.selectFrom('metrics').select(['project_id as projectId', 'event']).distinct().execute();
  }
}

/** The compare-and-set: the first move inserts the row, every later one finds the version it read. */
async function moveCursor(trx: Kysely<Database>, to: FoldPosition, expectedVersion: number): Promise<void> {
  const values = { events: to.events, exposures: to.exposures, version: expectedVersion + 1 };
  const result =
    expectedVersion === 0
      ? await trx
          .insertInto('fold_cursors')
          .values({ name: CURSOR, ...values })
          .onConflict((oc) => oc.column('name').doNothing())
          .executeTakeFirst()
      : await trx
          .updateTable('fold_cursors')
          .set(values)
          .where('name', '=', CURSOR)
          .where('version', '=', expectedVersion)
          .executeTakeFirst();
  const moved = Number(
    ('numInsertedOrUpdatedRows' in result ? result.numInsertedOrUpdatedRows : result.numUpdatedRows) ?? 0,
  );
  if (moved !== 1) throw new CursorMoved();
}

/** The step's rows: new units kept once, increments added to what is stored. */
async function writeStep(trx: Kysely<Database>, step: FoldStep): Promise<void> {
  const units = step.units.map((u) => ({
    project_id: u.projectId,
    comparison: u.comparison,
    unit: u.unit,
    variant: u.variant,
    first_at: new Date(u.firstAt).toISOString(),
  }));
  await upsertInChunks(trx, 'comparison_units', units, (oc) =>
    oc.columns(['project_id', 'comparison', 'unit']).doNothing(),
  );
  const metricUnits = step.metricUnits.map((m) => ({
    project_id: m.projectId,
    comparison: m.comparison,
    metric_id: m.metricId,
    unit: m.unit,
    variant: m.variant,
    count: m.count,
    sum: m.sum,
    pre_count: m.preCount,
    pre_sum: m.preSum,
  }));
  await upsertInChunks(trx, 'comparison_metric_units', metricUnits, (oc) =>
    oc.columns(['project_id', 'comparison', 'metric_id', 'unit']).doUpdateSet({
      count: sql`comparison_metric_units.count + excluded.count`,
      sum: sql`comparison_metric_units.sum + excluded.sum`,
      pre_count: sql`comparison_metric_units.pre_count + excluded.pre_count`,
      pre_sum: sql`comparison_metric_units.pre_sum + excluded.pre_sum`,
    }),
  );
  const unitDays = step.unitDays.map((d) => ({
    project_id: d.projectId,
    environment: d.environment,
    event: d.event,
    unit: d.unit,
    day: d.day,
    count: d.count,
    sum: d.sum,
  }));
  await upsertInChunks(trx, 'unit_event_days', unitDays, (oc) =>
    oc.columns(['project_id', 'environment', 'event', 'unit', 'day']).doUpdateSet({
      count: sql`unit_event_days.count + excluded.count`,
      sum: sql`unit_event_days.sum + excluded.sum`,
    }),
  );
}
