import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { buildApp } from '../../src/http/build-app.ts';
import { composeNode, servedBy } from '../../src/main.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { openChangeFeed } from '../../src/storage/change-feed/open-change-feed.ts';
import { migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';

// The server of the real-time benchmark, in a process of its own so that its RSS is its own.
// By default one node over in-memory SQLite with one flag and an evaluator key. With
// --database and --schema it is a node on a shared PostgreSQL schema, following the others'
// changes through the change feed; with --joining it only joins (another node set the schema
// up). It tells the parent its URL (and secrets, once set up), answers `memory` with its
// memory use (after a GC when --expose-gc is given), and `snapshot` with a heap snapshot.
// `time-fan-out` times the next change's delivery on this node: from the first listener of the
// project's changes (subscribed before any stream) to the last (subscribed now, after them all).

const { values } = parseArgs({
  options: { database: { type: 'string' }, schema: { type: 'string' }, joining: { type: 'boolean' } },
});
const ADMIN_KEY = 'fsk_bench-admin-key-0123456789abcdefghijklmnop';
const { db } = openDatabase(
  values.database ?? 'sqlite::memory:',
  values.schema === undefined ? {} : { schema: values.schema },
);
if (!values.joining) await migrateToLatest(db);
const store = createSqlStore(db);
if (!values.joining) await bootstrap(store, ADMIN_KEY);
const node = composeNode(store, { admission: { rateLimits: { evaluation: 0, management: 0 } } });
if (values.database !== undefined) await node.plane.sync.start(openChangeFeed(db), { info() {}, warn() {} });
const app = await buildApp(servedBy(node));
const { snapshots } = node.plane;
const { realtime } = node;
const url = await app.listen({ port: 0, host: '127.0.0.1' });

async function call(method: 'POST' | 'PATCH', path: string, payload: unknown) {
  const response = await app.inject({
    method,
    url: path,
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    payload: payload as object,
  });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${path}: ${response.statusCode} ${response.body}`);
  return response.json();
}

let changeAnnounced = { at: 0, cpu: process.cpuUsage() };
function timeNextFanOut(projectId: string) {
  const stop = snapshots.subscribe(projectId, () => {
    stop();
    const cpu = process.cpuUsage(changeAnnounced.cpu);
    process.send?.({
      type: 'fan-out',
      ms: performance.now() - changeAnnounced.at,
      cpuMs: (cpu.user + cpu.system) / 1000,
    });
  });
}

process.on('message', (message: { type?: string; path?: string; projectId?: string }) => {
  if (message?.type === 'time-fan-out' && message.projectId !== undefined) {
    timeNextFanOut(message.projectId);
    return;
  }
  if (message?.type === 'snapshot' && message.path !== undefined) {
    globalThis.gc?.();
    process.send?.({ type: 'snapshot', path: writeHeapSnapshot(message.path) });
    return;
  }
  if (message?.type !== 'memory') return;
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ type: 'memory', rss, heapUsed, streams: realtime.eventStreams.size });
});
if (values.joining) {
  process.send?.({ type: 'ready', url });
} else {
  const flag = await call('POST', '/v1/projects/default/flags', { key: 'live' });
  snapshots.subscribe(flag.projectId, () => {
    changeAnnounced = { at: performance.now(), cpu: process.cpuUsage() };
  });
  const key = await call('POST', '/v1/projects/default/api-keys', { name: 'bench', role: 'evaluator' });
  // For the edge benchmark (bench/edge.ts): edges' upstream streams.
  const edgeKey = await call('POST', '/v1/projects/default/api-keys', { name: 'bench edge', role: 'edge' });
  process.send?.({
    type: 'ready',
    url,
    adminKey: ADMIN_KEY,
    secret: key.secret,
    edgeKey: edgeKey.secret,
    flagId: flag.id,
    projectId: flag.projectId,
  });
}
