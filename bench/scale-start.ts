import * as os from 'node:os';
import { nextMessage, SERVER_V8_FLAGS, start } from './child.ts';
import { stop } from './http.ts';

// One database's import and start-up at scale, without the rest of the scale bench (issue 40):
//   node bench/scale-start.ts --database=<url> [--import=N] [--starts=K] [--cpu-prof=<dir>]
// With --import=N the database (empty, migrated by the node) is first filled by the flagd import
// in batches of 500 (bench/servers/scale.ts) and the import's time printed; then a fresh node is
// started over it K times (default 1) and its time to ready printed, each beside the load
// average. --cpu-prof writes a CPU profile of each node (the importing one too) into <dir>.

const argument = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const database = argument('database');
if (database === undefined) throw new Error('--database=<url> is required');
const importCount = Number(argument('import') ?? 0);
const starts = Number(argument('starts') ?? 1);
const profileDir = argument('cpu-prof');
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function server(args: string[]) {
  return start('./servers/scale.ts', {
    quiet: true,
    execArgv: [
      ...SERVER_V8_FLAGS,
      '--expose-gc',
      ...(profileDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ],
    args,
    env: { FLAGSTAFF_DATABASE_URL: database as string, FLAGSTAFF_LOG_LEVEL: 'warn' },
  });
}

if (importCount > 0) {
  const importing = server([`--import=${importCount}`]);
  const { importMs, memory } = await nextMessage<{ importMs: number; memory: { rss: number } }>(
    importing,
    'imported',
  );
  await stop(importing);
  console.log(
    `import of ${importCount} flags in batches of 500: ${(importMs / 1000).toFixed(1)} s, importing node RSS ${(memory.rss / 2 ** 20).toFixed(0)} MB (load ${load()})`,
  );
}
for (let i = 0; i < starts; i++) {
  const node = server([]);
  const ready = await nextMessage<{ readyMs: number; serveMs: number }>(node, 'ready');
  await stop(node);
  console.log(
    `start ${i + 1}: ready ${ready.readyMs.toFixed(0)} ms (serve() ${ready.serveMs.toFixed(0)} ms) (load ${load()})`,
  );
}
