import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { dayOf } from '../../domain/tracking-event.ts';
import type { EventQuery, EventStore, StoredEvent } from '../event-store.ts';
import { chunks, ROWS_PER_STATEMENT } from './chunked.ts';
import type { Database, EventsTable } from './database.ts';

/** Rows one SQLite retention statement deletes: short enough that writers barely wait for it. */
const SQLITE_PRUNE_BATCH = 5000;
const PARTITION = /^events_d(\d+)$/;

const partitionName = (day: number) => `events_d${Math.trunc(day)}`;

function rowOf(event: StoredEvent): EventsTable {
  return {
    project_id: event.projectId,
    environment: event.environment,
    day: dayOf(event.timestamp),
    id: event.id,
    name: event.name,
    unit: event.unit,
    at: new Date(event.timestamp).toISOString(),
    value: event.value,
    context: JSON.stringify(event.context),
    details: event.details === null ? null : JSON.stringify(event.details),
  };
}

function eventOf(row: EventsTable): StoredEvent {
  return {
    projectId: row.project_id,
    environment: row.environment,
    id: row.id,
    name: row.name,
    unit: row.unit,
    timestamp: Date.parse(row.at),
    value: row.value === null ? null : Number(row.value),
    context: JSON.parse(row.context),
    details: row.details === null ? null : JSON.parse(row.details),
  };
}

/** PostgreSQL: the partition of one day's events, unless it exists (a restore makes those of its rows' days). */
export async function createEventPartition(db: Kysely<Database>, day: number): Promise<void> {
  const name = sql.id(partitionName(day));
  await sql`create table if not exists ${name} partition of events for values from (${sql.lit(day)}) to (${sql.lit(day + 1)})`.execute(
    db,
  );
}

/** PostgreSQL's "it exists already" (42P07), or the catalogue race of two nodes creating it at once (23505). */
const alreadyThere = (error: unknown) =>
  ['42P07', '23505'].includes((error as { code?: string })?.code ?? '');

/** The EventStore over Kysely: day partitions on PostgreSQL, one table and batched deletes on SQLite. */
export class EventQueries implements EventStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;
  /** Days whose partition this node has made or seen: an insert into one of them checks nothing. */
  readonly #ready = new Set<number>();

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async insertEvents(events: readonly StoredEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const rows = events.map(rowOf);
    if (this.#postgres) await this.#preparePartitions(new Set(rows.map((r) => r.day)));
    const insert = async (db: Kysely<Database>, chunk: EventsTable[]) => {
      const result = await db
        .insertInto('events')
        .values(chunk)
        .onConflict((oc) => oc.columns(['project_id', 'environment', 'day', 'id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0);
    };
    if (rows.length <= ROWS_PER_STATEMENT) return insert(this.#db, rows);
    return this.#db.transaction().execute(async (trx) => {
      let inserted = 0;
      for (const chunk of chunks(rows, ROWS_PER_STATEMENT)) inserted += await insert(trx, chunk);
      return inserted;
    });
  }

  async listEvents(query: EventQuery): Promise<readonly StoredEvent[]> {
    let select = this.#db
      .selectFrom('events')
      .selectAll()
      .where('project_id', '=', query.projectId)
      .where('environment', '=', query.environment);
    if (query.name !== undefined) select = select.where('name', '=', query.name);
    // The day bounds let both databases read a range of the key (and PostgreSQL only those partitions).
    if (query.fromMs !== undefined) {
      select = select
        .where('day', '>=', dayOf(query.fromMs))
        .where('at', '>=', new Date(query.fromMs).toISOString());
    }
    if (query.toMs !== undefined) {
      select = select
        .where('day', '<=', dayOf(query.toMs))
        .where('at', '<', new Date(query.toMs).toISOString());
    }
    const rows = await select.orderBy('at').orderBy('id').limit(query.limit).execute();
    return rows.map(eventOf);
  }

  async prepareDays(fromDay: number, toDay: number): Promise<void> {
    if (!this.#postgres) return;
    const days = new Set<number>();
    for (let day = fromDay; day <= toDay; day++) days.add(day);
    await this.#preparePartitions(days);
  }

  async #preparePartitions(days: ReadonlySet<number>): Promise<void> {
    for (const day of days) {
      if (this.#ready.has(day)) continue;
      try {
        await createEventPartition(this.#db, day);
      } catch (error) {
        if (!alreadyThere(error)) throw error;
      }
      this.#ready.add(day);
    }
  }

  async pruneEvents(beforeDay: number): Promise<number> {
    return this.#postgres ? this.#dropPartitions(beforeDay) : this.#deleteInBatches(beforeDay);
  }

  async #dropPartitions(beforeDay: number): Promise<number> {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where p.relname = 'events' and p.relnamespace = current_schema()::regnamespace`.execute(this.#db);
    let dropped = 0;
    for (const { name } of rows) {
      const day = Number(PARTITION.exec(name)?.[1] ?? Number.NaN);
      if (!(day < beforeDay)) continue;
      await sql`drop table if exists ${sql.id(name)}`.execute(this.#db);
      this.#ready.delete(day);
      dropped++;
    }
    return dropped;
  }

  async #deleteInBatches(beforeDay: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const result = await sql`delete from events where rowid in
        (select rowid from events where day < ${beforeDay} limit ${SQLITE_PRUNE_BATCH})`.execute(this.#db);
      const count = Number(result.numAffectedRows ?? 0);
      deleted += count;
      if (count < SQLITE_PRUNE_BATCH) return deleted;
    }
  }
}
