import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Kysely, sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../src/storage/open-database.ts';
import type { Database } from '../src/storage/sql/database.ts';
import { SqlInsightsStore } from '../src/storage/sql/sql-insights-store.ts';
import { isMain, sendResult } from './child.ts';
import { median, ms, type Row } from './stats.ts';

// The insights query of issue 14: one flag, one environment, 30 days of minute buckets, on SQLite and
// PostgreSQL (FLAGSTAFF_BENCH_DATABASE_URL or FLAGSTAFF_TEST_DATABASE_URL). Every flag of the database
// is evaluated every minute of 30 days in 2 environments, alternating two variants: 86,400 rows per
// flag. The 1,000 flags are 86 million rows (~10 GB and ~20 min to load on SQLite), so the
// run loads 10 flags, then `--insights-flags` (default 100): the query reads one flag's rows through
// the primary key, and the two figures side by side show what the other flags cost it.

const MINUTES = 30 * 24 * 60;
const FIRST_MINUTE = 29_000_000;
const RUNS = 9;

interface Setup {
  readonly name: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-insights-bench-'));
  const { db } = openDatabase(`sqlite:${join(dir, 'bench.db')}`);
  await migrateToLatest(db);
  return {
    name: 'sqlite',
    db,
    async close() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(url: string): Promise<Setup> {
  const schema = `bench_insights_${process.pid}`;
  const admin = openDatabase(url).db;
  await sql`create schema ${sql.id(schema)}`.execute(admin);
  const { db } = openDatabase(url, { schema });
  await migrateToLatest(db);
  return {
    name: 'postgres',
    db,
    async close() {
      await db.destroy();
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin);
      await admin.destroy();
    },
  };
}

/** Adds flags `from`…`to − 1`, each evaluated every minute of 30 days in production and staging. */
async function load(setup: Setup, from: number, to: number): Promise<void> {
  // Built in the database itself, in primary-key order; the pruning index is rebuilt afterwards.
  await sql`drop index if exists flag_evaluation_counts_minute`.execute(setup.db);
  const flagKey =
    setup.name === 'sqlite' ? sql`printf('flag-%04d', f.i)` : sql`'flag-' || lpad(f.i::text, 4, '0')`;
  const series = (name: string, first: number, last: number) =>
    setup.name === 'sqlite'
      ? sql`with recursive ${sql.id(name)}(i) as (select ${sql.lit(first)} union all select i + 1 from ${sql.id(name)} where i < ${sql.lit(last)}) select i from ${sql.id(name)}`
      : sql`select generate_series(${sql.lit(first)}, ${sql.lit(last)}) as i`;
  for (let flag = from; flag < to; flag++) {
    await sql`insert into flag_evaluation_counts (project_id, flag_key, environment, minute, variant, reason, count)
      select 'prj_bench', ${flagKey}, e.env, ${sql.lit(FIRST_MINUTE)} + m.i,
        case when m.i % 2 = 0 then 'on' else 'off' end, 'split', 1 + m.i % 7
      from (${series('f', flag, flag)}) f,
        (select 'production' as env union all select 'staging' as env) e,
        (${series('m', 0, MINUTES - 1)}) m`.execute(setup.db);
  }
  await sql`create index flag_evaluation_counts_minute on flag_evaluation_counts (minute)`.execute(setup.db);
  await sql.raw(setup.name === 'sqlite' ? 'analyze' : 'analyze flag_evaluation_counts').execute(setup.db);
}

/** Median milliseconds of the 30-day series of the middle flag, as GET /v1/flags/{id}/insights asks for it. */
async function timeQuery(
  setup: Setup,
  flags: number,
  stepMinutes: number,
): Promise<{ ms: number; total: number }> {
  const store = new SqlInsightsStore(setup.db);
  const query = {
    projectId: 'prj_bench',
    flagKey: `flag-${String(Math.floor(flags / 2)).padStart(4, '0')}`,
    environment: 'production',
    fromMinute: FIRST_MINUTE,
    toMinute: FIRST_MINUTE + MINUTES,
    stepMinutes,
  };
  let total = 0;
  const times: number[] = [];
  for (let run = 0; run < RUNS + 2; run++) {
    const began = performance.now();
    const rows = await store.evaluationSeries(query);
    const elapsed = performance.now() - began;
    if (run >= 2) times.push(elapsed);
    total = rows.reduce((sum, row) => sum + row.count, 0);
  }
  return { ms: median(times), total };
}

export async function insightsQueryBenchmark(
  largeFlags: number,
  postgresUrl: string | undefined,
): Promise<Row[]> {
  const rows: Row[] = [];
  const setups = [openSqlite, ...(postgresUrl ? [() => openPostgres(postgresUrl)] : [])];
  for (const open of setups) {
    const setup = await open();
    try {
      await load(setup, 0, 10);
      const small = await timeQuery(setup, 10, 360);
      const began = performance.now();
      await load(setup, 10, largeFlags);
      const loadSeconds = (performance.now() - began) / 1000;
      for (const [step, label] of [
        [360, '6 h'],
        [60, '1 h'],
      ] as const) {
        const large = await timeQuery(setup, largeFlags, step);
        const baseline = step === 360 ? small : await timeQuery(setup, 10, step);
        rows.push({
          section: 'insights',
          figure: `${setup.name}: one flag, 30 days of minutes, ${label} steps, ${largeFlags} flags × 2 envs`,
          value: ms(large.ms),
          baseline: `${ms(baseline.ms)} with 10 flags`,
          ratio: baseline.ms / large.ms,
          target: '< 200 ms',
          met: large.ms < 200,
          note: `${(largeFlags * 2 * MINUTES).toLocaleString('en')} minute rows (${loadSeconds.toFixed(0)} s to load); ${large.total.toLocaleString('en')} evaluations summed; median of ${RUNS}`,
        });
      }
    } finally {
      await setup.close();
    }
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { flags: { type: 'string', default: '100' } } });
  const url =
    process.env.FLAGSTAFF_BENCH_DATABASE_URL || process.env.FLAGSTAFF_TEST_DATABASE_URL || undefined;
  const rows = await insightsQueryBenchmark(Number(values.flags), url);
  if (process.send) sendResult(rows);
  else console.log(rows);
}
