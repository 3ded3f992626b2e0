import type { Kysely } from 'kysely';
import type { Flag } from '../src/domain/flag.ts';
import { composeNode } from '../src/main.ts';
import type { NodeSync } from '../src/plane/node-sync.ts';
import type { SnapshotRegistry } from '../src/plane/snapshots.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import type { Services } from '../src/services/services.ts';
import { openChangeFeed } from '../src/storage/change-feed/open-change-feed.ts';
import { migrateToLatest, openDatabase } from '../src/storage/open-database.ts';
import type { Database } from '../src/storage/sql/database.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import { isMain, sendResult } from './child.ts';
import { median, ms, type Row } from './stats.ts';

// Cross-node propagation (docs/product.md §8): two nodes on one PostgreSQL database, each with
// its own pool and change feed, as two processes would have. Node A changes a flag (the same use
// case PATCH runs); the clock starts when A acknowledges the write (docs/product.md §8: "a write
// acknowledged by node A is served by node B within …") and runs until node B serves the change
// from its snapshot. The baseline is the write itself on A, until acknowledged. A second series
// writes bursts of changes back to back, the case where notices arrive faster than a node applies
// them.

const CHANGES = 30;
/** Changes written back to back, without waiting for node B, before timing the last one. */
const BURST = 5;
const quiet = { info: () => {}, warn: () => {} };
const actor = {
  principal: { type: 'user', id: 'bench', name: 'bench', role: 'admin', projectId: null, environments: null },
  requestId: 'bench',
} as const;

interface BenchNode {
  readonly services: Services;
  readonly snapshots: SnapshotRegistry;
  readonly sync: NodeSync;
  readonly db: Kysely<Database>;
}

async function node(url: string, schema: string): Promise<BenchNode> {
  const { db } = openDatabase(url, { schema });
  const store = createSqlStore(db);
  const { services, plane } = composeNode(store);
  await plane.sync.start(openChangeFeed(db), quiet);
  return { services, snapshots: plane.snapshots, sync: plane.sync, db };
}

const served = (node: BenchNode, projectId: string) =>
  node.snapshots.peek(projectId, 'production')?.evaluate('propagation', { targetingKey: 'u' }, 0)?.value;

export async function propagationBenchmark(url: string): Promise<Row[]> {
  const schema = `bench_propagation_${process.pid}`;
  const admin = openDatabase(url).db;
  const { sql } = await import('kysely');
  await sql`create schema if not exists ${sql.id(schema)}`.execute(admin);
  try {
    const { db: setup } = openDatabase(url, { schema });
    await migrateToLatest(setup);
    await bootstrap(createSqlStore(setup), undefined);
    await setup.destroy();
    const a = await node(url, schema);
    const b = await node(url, schema);
    const project = await a.services.projects.get(actor as never, 'default');
    const created: Flag = await a.services.flags.create(actor as never, project.id, { key: 'propagation' });
    const write = (enabled: boolean) =>
      a.services.flags.patch(actor as never, created.id, { enabled } as never, { environment: 'production' });
    const servedByB = async (expected: boolean) => {
      while (served(b, project.id) !== expected) await new Promise((resolve) => setImmediate(resolve));
    };
    const toB: number[] = [];
    const onA: number[] = [];
    let enabled = false;
    for (let i = 0; i < CHANGES; i++) {
      enabled = !enabled;
      const began = performance.now();
      await write(enabled);
      const acknowledged = performance.now();
      onA.push(acknowledged - began);
      await servedByB(enabled);
      toB.push(performance.now() - acknowledged);
    }
    // Bursts: BURST writes back to back; timed from the last acknowledgement to B serving it.
    const afterBurst: number[] = [];
    for (let i = 0; i < CHANGES / BURST; i++) {
      for (let j = 0; j < BURST; j++) {
        enabled = !enabled;
        await write(enabled);
      }
      const acknowledged = performance.now();
      await servedByB(enabled);
      afterBurst.push(performance.now() - acknowledged);
    }
    for (const n of [a, b]) {
      await n.sync.close();
      await n.db.destroy();
    }
    const p50 = median(toB);
    const max = Math.max(...toB);
    return [
      {
        section: 'propagation',
        figure: `change on node A served by node B, PostgreSQL, p50 of ${CHANGES}`,
        value: ms(p50),
        baseline: `${ms(median(onA))} write on A`,
        ratio: p50 / median(onA),
        target: '< 100 ms',
        met: p50 < 100,
        note: 'from A acknowledging the write to B serving it; baseline: the write itself on A (PATCH, until acknowledged); ratio: propagation / write',
      },
      {
        section: 'propagation',
        figure: `same, max of ${CHANGES}`,
        value: ms(max),
        baseline: '',
        ratio: Number.NaN,
        target: '< 1 s',
        met: max < 1000,
      },
      {
        section: 'propagation',
        figure: `last of ${BURST} back-to-back changes served by B, p50 / max of ${afterBurst.length}`,
        value: `${ms(median(afterBurst))} / ${ms(Math.max(...afterBurst))}`,
        baseline: '',
        ratio: Number.NaN,
        target: '< 100 ms / < 1 s',
        met: median(afterBurst) < 100 && Math.max(...afterBurst) < 1000,
        note: 'node B hears the notices while it applies earlier ones: each should still patch one flag, never reload the project',
      },
    ];
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
    await admin.destroy();
  }
}

if (isMain(import.meta.url)) {
  const url = process.env.FLAGSTAFF_BENCH_DATABASE_URL ?? process.env.FLAGSTAFF_TEST_DATABASE_URL;
  sendResult(url === undefined ? [] : await propagationBenchmark(url));
}
