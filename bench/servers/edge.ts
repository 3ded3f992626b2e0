import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEdgeConfig } from '../../src/config.ts';
import { startEdge } from '../../src/edge/edge-node.ts';

// The edge of the edge benchmark (bench/edge.ts), in a process of its own: `flagstaff edge` as
// the CLI starts it, following the upstream the parent names (FLAGSTAFF_UPSTREAM_URL,
// FLAGSTAFF_EDGE_KEY in its environment), its cache in a temporary directory. It tells the parent
// its port once it holds the snapshot, and answers the parent's CPU questions.

const cache = mkdtempSync(join(tmpdir(), 'flagstaff-bench-edge-'));
const edge = await startEdge(
  loadEdgeConfig({
    ...process.env,
    FLAGSTAFF_EDGE_CACHE: cache,
    FLAGSTAFF_HOST: '127.0.0.1',
    FLAGSTAFF_PORT: '0',
    FLAGSTAFF_DATABASE_URL: 'sqlite::memory:',
  }),
);
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'cpu') process.send?.({ type: 'cpu', usage: process.cpuUsage() });
});
process.once('SIGTERM', () => {
  void edge.close().finally(() => {
    rmSync(cache, { recursive: true, force: true });
    process.exit(0);
  });
});
process.send?.({ type: 'ready', port: Number(new URL(edge.origin).port) });
