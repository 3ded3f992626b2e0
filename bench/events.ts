import { composeNode } from '../src/main.ts';
import type { StoredEvent } from '../src/storage/event-store.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import { isMain, report } from './child.ts';
import { type BenchDatabase, rowOnEach } from './databases.ts';
import { type Row, si } from './stats.ts';

// The SQL event store's ceiling (decision 1920): tracking events per second into SQLite (a file)
// and PostgreSQL, in batches of 500 as POST /v1/events takes them, through the use case (each
// event checked, then one multi-row insert) with `CONCURRENCY` batches in flight, as several
// clients would send them. The baseline is the store alone, given rows already checked: the ratio
// is what checking costs. Target: ≥ 20,000 events/s (SPEC §13).

const BATCH = 500;
const SECONDS = 4;
const CONCURRENCY = 4;
const TARGET = 20_000;

const target = { projectId: 'prj_bench', environment: 'production' };

function rawBatch(prefix: string, nowMs: number): unknown[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    id: `${prefix}-${i}`,
    name: i % 5 === 0 ? 'purchase' : 'page view',
    value: i % 5 === 0 ? 19.99 : undefined,
    context: { targetingKey: `user-${(i * 7919) % 100_000}`, plan: 'pro', country: 'BE' },
    details: { path: '/checkout' },
    timestamp: new Date(nowMs - i).toISOString(),
  }));
}

function storedBatch(prefix: string, nowMs: number): StoredEvent[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    ...target,
    id: `${prefix}-${i}`,
    name: i % 5 === 0 ? 'purchase' : 'page view',
    unit: `user-${(i * 7919) % 100_000}`,
    context: { plan: 'pro', country: 'BE' },
    value: i % 5 === 0 ? 19.99 : null,
    details: { path: '/checkout' },
    timestamp: nowMs - i,
  }));
}

/** Events per second with `CONCURRENCY` writers sending batches for `SECONDS`, after a warm-up. */
async function eventsPerSecond(send: (prefix: string) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await send(`warm-${i}`);
  let batches = 0;
  const until = performance.now() + SECONDS * 1000;
  const began = performance.now();
  const writer = async (w: number) => {
    for (let n = 0; performance.now() < until; n++) {
      await send(`w${w}-${n}`);
      batches++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => writer(w)));
  return (batches * BATCH) / ((performance.now() - began) / 1000);
}

/** Events per second into a fresh database, through the use case or (`alone`) into the store directly. */
async function into(open: () => Promise<BenchDatabase>, alone: boolean): Promise<number> {
  const opened = await open();
  try {
    const store = createSqlStore(opened.db);
    const { services } = composeNode(store);
    const nowMs = Date.now();
    return await eventsPerSecond((prefix) =>
      alone
        ? store.events.insertEvents(storedBatch(prefix, nowMs))
        : services.events.track(target, rawBatch(prefix, nowMs)),
    );
  } finally {
    await opened.close();
  }
}

async function measure(name: string, open: () => Promise<BenchDatabase>): Promise<Row> {
  const alone = await into(open, true);
  const through = await into(open, false);
  return {
    section: 'events',
    figure: `${name}: events/s in batches of ${BATCH}, ${CONCURRENCY} in flight, checked and stored (baseline: the store alone)`,
    value: `${si(through)}/s`,
    baseline: `${si(alone)}/s`,
    ratio: through / alone,
    target: `≥ ${si(TARGET)}/s`,
    met: through >= TARGET,
  };
}

if (isMain(import.meta.url)) report(await rowOnEach('events', measure));
