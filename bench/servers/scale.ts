import { readFileSync } from 'node:fs';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import { manyFlagKey } from '../../test/support/many-flags.ts';
import { answerProfiling } from './profiling.ts';

// The server of the scale benchmark (bench/scale-http.ts), in a process of its own: started as
// `npm start` starts it (main.ts's serve, its V8 flags from the parent) over the database the
// parent names. With --import=N it first fills the default project as the issue did (flagd
// import of N flags in batches of 500, each a 2-variant fractional split behind an `in`
// condition, every flag then evaluated once) and reports (after --quiet-ms); without, it only starts, over a
// database filled before, and says how long that took. Answers `memory` (after a forced GC) and
// `cpu` over IPC, and is profiled over a window (profiling.ts: bench/change-cost.ts).

const ADMIN_KEY = 'fsk_bench-admin-key-0123456789abcdefghijklmnop';
const BATCH = 500;

const began = performance.now();
const app = await serve(
  loadConfig({
    ...process.env,
    FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
    FLAGSTAFF_HOST: '127.0.0.1',
    FLAGSTAFF_PORT: '0',
    FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
    FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
  }),
);
const serveMs = performance.now() - began;
/** From the process's start (Node's own start-up and module loading included) to listening, loaded. */
const readyMs = process.uptime() * 1000;

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const response = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-flagstaff-project': 'default' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response;
}

/** The flag: on or off by a 50/50 split for the plans named, else off. */
function flagdFlag(i: number) {
  return {
    state: 'ENABLED',
    variants: { on: true, off: false },
    defaultVariant: 'off',
    targeting: {
      if: [
        { in: [{ var: 'plan' }, ['pro', 'team', `plan-${i % 50}`]] },
        { fractional: [{ var: 'targetingKey' }, ['on', 50], ['off', 50]] },
        'off',
      ],
    },
  };
}

async function importFlags(count: number): Promise<number> {
  const start = performance.now();
  for (let from = 0; from < count; from += BATCH) {
    const flags: Record<string, unknown> = {};
    for (let i = from; i < Math.min(count, from + BATCH); i++) flags[manyFlagKey(i)] = flagdFlag(i);
    await call('POST', '/v1/projects/default/environments/production/flagd', { flags });
  }
  return performance.now() - start;
}

/** Memory after a forced GC (the parent starts this process with --expose-gc), as the kernel and V8 count it. */
function memory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  const heap = getHeapStatistics();
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return {
    rss: kib('VmRSS'),
    anonymous: kib('RssAnon'),
    file: kib('RssFile'),
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    /** What V8 has in physical memory (heap pages), and what it took from malloc (its zones, compiler). */
    heapPhysical: heap.total_physical_size,
    v8Malloced: heap.malloced_memory,
  };
}
export type ScaleMemory = ReturnType<typeof memory>;

const importCount = Number(process.argv.find((a) => a.startsWith('--import='))?.slice(9) ?? 0);
if (importCount > 0) {
  // Fills the database, reports, and waits to be stopped: this node is measured for its import only.
  const importMs = await importFlags(importCount);
  await call('POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'user-1', plan: 'pro' } });
  // --quiet-ms=N: measured N ms later, as the issue measured it (15 s), once V8's reducer could run.
  const quietMs = Number(process.argv.find((a) => a.startsWith('--quiet-ms='))?.slice(11) ?? 0);
  await new Promise((resolve) => setTimeout(resolve, quietMs));
  process.send?.({ type: 'imported', importMs, memory: memory() });
} else {
  await announce();
}

/** Makes an evaluator key, answers `memory`, `cpu` and `heap-snapshot`, and tells the parent where to load. */
async function announce(): Promise<void> {
  const key = (
    await call('POST', '/v1/projects/default/api-keys', { name: 'bench', role: 'evaluator' })
  ).json();
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  answerProfiling();
  process.on('message', (message: { type?: string }) => {
    // `thread`: the main thread's alone (the event loop's), without the thread pool's and GC helpers'.
    if (message?.type === 'cpu')
      process.send?.({ type: 'cpu', usage: process.cpuUsage(), thread: process.threadCpuUsage() });
    if (message?.type === 'memory') process.send?.({ type: 'memory', memory: memory() });
    // bench/heap-snapshot.ts --database=…: where the heap of a started node goes.
    if (message?.type === 'heap-snapshot') {
      const file = writeHeapSnapshot((message as { file?: string }).file);
      process.send?.({ type: 'heap-snapshot', file });
    }
  });
  process.send?.({
    type: 'ready',
    origin: `http://127.0.0.1:${address.port}`,
    evaluatorKey: key.secret,
    adminKey: ADMIN_KEY,
    readyMs,
    serveMs,
  });
}
