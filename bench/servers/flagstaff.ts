import { getHeapSpaceStatistics } from 'node:v8';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import { HTTP_CONTEXT, SEGMENTS, TARGETED_FLAG } from '../fixtures.ts';
import { answerProfiling } from './profiling.ts';

// The Flagstaff server of the HTTP benchmark, in a process of its own: started as `npm start` starts
// it (main.ts's serve, configuration from the environment the parent passes: in-memory SQLite, the
// rate limits off), then given the benchmark's segments and flag through the API, and an evaluator
// API key, whose secret it hands to the parent over IPC with the URL to load.

const ADMIN_KEY = 'fsk_bench-admin-key-0123456789abcdefghijklmnop';

const app = await serve(
  loadConfig({
    ...process.env,
    FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
    FLAGSTAFF_DATABASE_URL: 'sqlite::memory:',
    FLAGSTAFF_HOST: '127.0.0.1',
    FLAGSTAFF_PORT: '0',
  }),
);

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const response = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

for (const segment of SEGMENTS) {
  const { key, name, match, rules, included } = segment;
  await call('POST', '/v1/projects/default/segments', { key, name, match, rules, included });
}
const created = await call('POST', '/v1/projects/default/flags', {
  key: TARGETED_FLAG.key,
  name: TARGETED_FLAG.name,
  type: TARGETED_FLAG.type,
  variants: TARGETED_FLAG.variants,
});
const { enabled, offVariant, defaultVariant, rules } = TARGETED_FLAG.environments.production ?? {};
await call('PATCH', `/v1/flags/${created.id}?environment=production`, {
  enabled,
  offVariant,
  defaultVariant,
  rules: rules?.map(({ segments, conditions, serve }) => ({ segments, conditions, serve })),
});
const key = await call('POST', '/v1/projects/default/api-keys', { name: 'bench', role: 'evaluator' });
// For the edge benchmark (bench/edge.ts): an edge follows this server with it.
const edgeKey = await call('POST', '/v1/projects/default/api-keys', { name: 'bench edge', role: 'edge' });

// bench/memory-reducing-gc.ts: the node as V8's memory reducer leaves it (started with --expose-gc).
if (process.env.FLAGSTAFF_BENCH_MEMORY_REDUCING_GC === '1') {
  (globalThis as { gc?: (options: object) => void }).gc?.({
    type: 'major',
    execution: 'sync',
    flavor: 'last-resort',
  });
}

const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no TCP address');
// bench/profile-http.ts profiles the load window only, not the start-up.
answerProfiling();
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'cpu') process.send?.({ type: 'cpu', usage: process.cpuUsage() });
  if (message?.type === 'memory') {
    const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    process.send?.({
      type: 'memory',
      heapUsed: process.memoryUsage().heapUsed,
      newSpace: newSpace?.space_size ?? 0,
    });
  }
});
process.send?.({
  type: 'ready',
  url: `http://127.0.0.1:${address.port}/v1/flags/${TARGETED_FLAG.key}?attributes=${encodeURIComponent(JSON.stringify(HTTP_CONTEXT))}`,
  headers: { authorization: `Bearer ${key.secret}` },
  edgeKey: edgeKey.secret,
});
