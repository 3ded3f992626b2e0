import { buildApp } from '../src/http/build-app.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import { createServices } from '../src/services/services.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import { isMain, report } from './child.ts';
import { openBenchSqlite } from './databases.ts';
import { mb, type Row } from './stats.ts';

// Sustained overload (decision 1922): far more clients than a node admits send batches of 500
// events to a node whose database is slow (each write waits a second more: the admitted batches, not the CPU, are the limit), for SECONDS. Printed: the
// process's peak RSS over its RSS at rest, the share answered 503, and whether every acknowledged
// event is stored. The memory must stay bounded by the admitted batches, not grow with the clients.

const CLIENTS = 64;
const SECONDS = 5;
const BATCH = 500;
const KEY = 'fsk_bench-overload-admin-key-0123456789abcd';

async function rows(): Promise<Row[]> {
  const opened = await openBenchSqlite('overload');
  const store = createSqlStore(opened.db);
  await bootstrap(store, KEY);
  const insert = store.events.insertEvents.bind(store.events);
  (store.events as { insertEvents: typeof insert }).insertEvents = async (events) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return insert(events);
  };
  const app = await buildApp({
    services: createServices(store),
    accessControl: { rateLimits: { evaluation: 0, management: 0 } },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const atRest = process.memoryUsage().rss;
  let peak = atRest;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const acknowledged = new Set<number>();
  let accepted = 0;
  let refused = 0;
  const until = performance.now() + SECONDS * 1000;
  // Each client's batch made once and sent again and again (its retries store nothing twice), so
  // that the clients, in this process too, spend little: the node is what is measured.
  const client = async (c: number) => {
    const events = Array.from({ length: BATCH }, (_, i) => ({
      id: `c${c}-${i}`,
      name: 'page view',
      context: { targetingKey: `c${c}-${i}`, path: '/x'.repeat(50) },
    }));
    const body = JSON.stringify({ events });
    const headers = {
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'x-flagstaff-project': 'default',
    };
    while (performance.now() < until) {
      const res = await fetch(`${url}/v1/events`, { method: 'POST', headers, body });
      await res.text();
      if (res.status === 200) {
        accepted++;
        acknowledged.add(c);
      } else if (res.status === 503) {
        refused++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      } else throw new Error(`answered ${res.status}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  } finally {
    clearInterval(sampler);
    await app.close();
  }
  const projectId = (await store.findProject('default'))?.id as string;
  const kept = new Set(
    (await store.events.listEvents({ projectId, environment: 'production', limit: 10_000_000 })).map(
      (e) => e.id,
    ),
  );
  const lost = [...acknowledged]
    .flatMap((c) => Array.from({ length: BATCH }, (_, i) => `c${c}-${i}`))
    .filter((id) => !kept.has(id)).length;
  await opened.close();
  const batches = accepted + refused;
  return [
    {
      section: 'events',
      figure: `overload: ${CLIENTS} clients, slow database: peak RSS over RSS at rest (503 answered to ${((refused / batches) * 100).toFixed(0)} % of batches)`,
      value: mb(peak - atRest),
      baseline: mb(atRest),
      ratio: peak / atRest,
      target: '< 200 MB',
      met: peak - atRest < 200 * 1024 * 1024,
    },
    {
      section: 'events',
      figure: `overload: acknowledged events lost (of ${acknowledged.size * BATCH} distinct)`,
      value: String(lost),
      baseline: '',
      ratio: Number.NaN,
      target: '0',
      met: lost === 0,
    },
  ];
}

if (isMain(import.meta.url)) report(await rows());
