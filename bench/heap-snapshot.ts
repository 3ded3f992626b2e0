import { readFileSync } from 'node:fs';
import * as v8 from 'node:v8';
import { compileProject } from '../src/evaluation/compile-environment.ts';
import { nextMessage, SERVER_V8_FLAGS, start } from './child.ts';
import { stop } from './http.ts';
import { generateProject } from './scale.ts';

// Where the memory of a large project's snapshots goes (decision 1600): builds the scale benchmark's
// 10,000 flags × 3 environments and 1,000 segments as a node would (the source flags dropped
// once compiled), writes a V8 heap snapshot, and prints the self size of what the heap holds by
// kind (constructor, closure, array, string…), largest first. Run with --expose-gc:
//   node --expose-gc bench/heap-snapshot.ts [file.heapsnapshot] [--top=40]
// With --database=sqlite:PATH (a database the scale benchmark filled, issue 40), the heap is that
// of a whole node started over it (bench/servers/scale.ts, as `npm start` starts it), after a GC.

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count per node type and name, from a .heapsnapshot file. */
export function summarise(path: string): { kind: string; count: number; bytes: number }[] {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const totals = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = types[heap.nodes[i + typeAt] as number] as string;
    const name = heap.strings[heap.nodes[i + nameAt] as number] as string;
    // Strings and numbers are named by their value: group them by type alone.
    const kind =
      type === 'string' || type === 'number' || type === 'concatenated string'
        ? type
        : `${type}: ${name.slice(0, 60)}`;
    const total = totals.get(kind) ?? { count: 0, bytes: 0 };
    total.count++;
    total.bytes += heap.nodes[i + sizeAt] as number;
    totals.set(kind, total);
  }
  return [...totals].map(([kind, t]) => ({ kind, ...t })).sort((a, b) => b.bytes - a.bytes);
}

const file = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '/tmp/flagstaff-scale.heapsnapshot';
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 40);
const database = process.argv.find((a) => a.startsWith('--database='))?.slice(11);

/** In a function of its own: a top-level module's registers would keep the source flags alive. */
function build() {
  const { flags, segments } = generateProject();
  return compileProject(['development', 'staging', 'production'], flags, segments);
}

/** A node started over `databaseUrl` writes its heap snapshot to `path` (after a forced GC). */
async function nodeHeapSnapshot(databaseUrl: string, path: string): Promise<string> {
  const server = start('./servers/scale.ts', {
    quiet: true,
    execArgv: [...SERVER_V8_FLAGS, '--expose-gc'],
    env: { FLAGSTAFF_DATABASE_URL: databaseUrl, FLAGSTAFF_LOG_LEVEL: 'warn' },
  });
  try {
    await nextMessage(server, 'ready');
    const memory = nextMessage<{ memory: { rss: number; heapUsed: number } }>(server, 'memory');
    server.send({ type: 'memory' });
    const { rss, heapUsed } = (await memory).memory;
    const written = nextMessage<{ file: string }>(server, 'heap-snapshot');
    server.send({ type: 'heap-snapshot', file: path });
    await written;
    return `a node over ${databaseUrl}; heap used ${(heapUsed / 2 ** 20).toFixed(1)} MB, RSS ${(rss / 2 ** 20).toFixed(0)} MB; snapshot ${path}`;
  } finally {
    await stop(server);
  }
}

if (database === undefined) {
  const snapshots = build();
  gc();
  gc();
  const used = process.memoryUsage();
  v8.writeHeapSnapshot(file);
  console.log(
    `${snapshots.size} environments; heap used ${(used.heapUsed / 2 ** 20).toFixed(1)} MB, RSS ${(used.rss / 2 ** 20).toFixed(0)} MB; snapshot ${file}`,
  );
} else {
  console.log(await nodeHeapSnapshot(database, file));
}
const rows = summarise(file);
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
console.log(`heap snapshot total ${(total / 2 ** 20).toFixed(1)} MB`);
for (const row of rows.slice(0, top)) {
  console.log(
    `${(row.bytes / 2 ** 20).toFixed(2).padStart(8)} MB ${String(row.count).padStart(9)}  ${row.kind}`,
  );
}
