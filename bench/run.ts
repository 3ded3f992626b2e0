import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { parseArgs } from 'node:util';
import { runPart, SERVER_V8_FLAGS } from './child.ts';
import { edgeBenchmark } from './edge.ts';
import { HTTP_DEFAULTS, httpBenchmark } from './http.ts';
import { insightsHttpBenchmark } from './insights-http.ts';
import { memoryReducingCollectionCost } from './memory-reducing-gc.ts';
import { SCALE_SIZES, scaleServerBenchmark } from './scale-http.ts';
import { soakBenchmark } from './soak.ts';
import { mb, type Row, table } from './stats.ts';

// `npm run bench [-- --only=evaluator,jsonlogic,scale,http,propagation,soak,writes,lists,insights,realtime,scheduler,events,flags-as-code,results,edge,refs]
//   [--log-level=info] [--seconds=4] [--rounds=5] [--soak-seconds=60] [--insights-flags=100] [--scale-flags=1000,10000,50000]`
// propagation needs PostgreSQL: FLAGSTAFF_BENCH_DATABASE_URL (or FLAGSTAFF_TEST_DATABASE_URL); without it, it is skipped.
// Prints each figure of docs/performance.md with its ratio against a baseline measured in the same run, and
// whether it meets its target. Figures only: a missed target never fails the run. Each part runs
// in processes of its own, so that no part's JIT state, heap or event loop colours another's.

const PARTS = [
  'evaluator',
  'jsonlogic',
  'scale',
  'http',
  'propagation',
  'soak',
  'writes',
  'lists',
  'insights',
  'realtime',
  'scheduler',
  'events',
  'flags-as-code',
  'results',
  'edge',
  'refs',
] as const;
type Part = (typeof PARTS)[number];

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'log-level': { type: 'string', default: HTTP_DEFAULTS.logLevel },
    seconds: { type: 'string', default: String(HTTP_DEFAULTS.seconds) },
    rounds: { type: 'string', default: String(HTTP_DEFAULTS.rounds) },
    'insights-flags': { type: 'string', default: '100' },
    'soak-seconds': { type: 'string', default: '60' },
    'scale-flags': { type: 'string', default: SCALE_SIZES.join(',') },
  },
});
const parts = (values.only?.split(',') ?? PARTS).filter((p): p is Part =>
  (PARTS as readonly string[]).includes(p),
);

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    return line?.split(':')[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadAtStart = os.loadavg()[0] ?? 0;
console.log(
  `Flagstaff benchmarks — ${new Date().toISOString()}\n` +
    `machine: ${os.availableParallelism()} cores (nproc), ${cpuModel()}, ${mb(os.totalmem())} RAM; Node ${process.version}; ` +
    `load average at start ${load()}`,
);
if (loadAtStart > 0.5) {
  console.log(
    'warning: the machine is busy (load average above 0.5): other processes share the cores; figures will be low and noisy.',
  );
}

const scaleSizes = (values['scale-flags'] ?? '')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);

const httpOptions = {
  ...HTTP_DEFAULTS,
  logLevel: values['log-level'] ?? HTTP_DEFAULTS.logLevel,
  seconds: Number(values.seconds),
  rounds: Number(values.rounds),
};

const started = performance.now();
const rows: Row[] = [];
for (const part of parts) {
  const began = performance.now();
  process.stdout.write(`running ${part}… `);
  if (part === 'evaluator')
    rows.push(...(await runPart<Row[]>('./evaluator.ts', { execArgv: ['--expose-gc'] })));
  if (part === 'jsonlogic')
    rows.push(...(await runPart<Row[]>('./jsonlogic.ts', { execArgv: ['--expose-gc'] })));
  if (part === 'scale') {
    // A real server at each size (issue 40), then the in-process snapshot figures.
    rows.push(...(await scaleServerBenchmark(httpOptions, scaleSizes)));
    rows.push(...(await runPart<Row[]>('./scale.ts', { execArgv: ['--expose-gc'] })));
    // As a node holds the project (sources dropped after the build): with the V8 flags that
    // bin/flagstaff.js gives every start path, and with V8's defaults, which size the young
    // generation from the machine's memory.
    for (const [flags, figure] of [
      [SERVER_V8_FLAGS, `as shipped (bin/flagstaff.js: ${SERVER_V8_FLAGS.join(' ')})`],
      [[], "V8's defaults"],
    ] as const) {
      const rss = await runPart<number>('./scale.ts', {
        execArgv: ['--expose-gc', ...flags],
        args: ['--rss-only'],
      });
      const shipped = flags.length > 0;
      rows.push({
        section: 'scale',
        figure: `process RSS after build, sources dropped, ${figure}`,
        value: mb(rss),
        baseline: '',
        ratio: Number.NaN,
        target: shipped ? '< 200 MB' : '',
        ...(shipped ? { met: rss < 200 * 1024 * 1024 } : {}),
      });
    }
  }
  if (part === 'writes') rows.push(...(await runPart<Row[]>('./writes.ts')));
  if (part === 'lists') rows.push(...(await runPart<Row[]>('./lists.ts')));
  if (part === 'scheduler') rows.push(...(await runPart<Row[]>('./scheduler.ts')));
  if (part === 'flags-as-code') rows.push(...(await runPart<Row[]>('./flags-as-code.ts')));
  if (part === 'events') {
    rows.push(...(await runPart<Row[]>('./events.ts')));
    rows.push(...(await runPart<Row[]>('./events-overload.ts')));
  }
  if (part === 'results') rows.push(...(await runPart<Row[]>('./results.ts')));
  if (part === 'edge') rows.push(...(await edgeBenchmark(httpOptions)));
  if (part === 'refs') rows.push(...(await runPart<Row[]>('./refs.ts')));
  if (part === 'http') {
    rows.push(...(await httpBenchmark(httpOptions)));
    rows.push(...(await memoryReducingCollectionCost(httpOptions)));
  }
  if (part === 'insights') {
    rows.push(...(await insightsHttpBenchmark(httpOptions)));
    rows.push(...(await runPart<Row[]>('./insights-counter.ts')));
    rows.push(
      ...(await runPart<Row[]>('./insights-query.ts', { args: [`--flags=${values['insights-flags']}`] })),
    );
  }
  if (part === 'realtime') rows.push(...(await runPart<Row[]>('./realtime.ts')));
  if (part === 'propagation') {
    const measured = await runPart<Row[]>('./propagation.ts');
    if (measured.length === 0)
      console.log('skipped (set FLAGSTAFF_BENCH_DATABASE_URL to a PostgreSQL database) ');
    rows.push(...measured);
  }
  if (part === 'soak') {
    // As shipped (bin/flagstaff.js caps V8's young generation however it is started), and with V8's default sizing for comparison.
    for (const execArgv of [SERVER_V8_FLAGS, []]) {
      rows.push(
        ...(await soakBenchmark({
          seconds: Number(values['soak-seconds']),
          connections: HTTP_DEFAULTS.connections,
          logLevel: values['log-level'] === 'warn' ? 'info' : (values['log-level'] ?? 'info'),
          execArgv,
        })),
      );
    }
  }
  console.log(`${((performance.now() - began) / 1000).toFixed(0)} s`);
}

console.log(`\n${table(rows)}\n`);
console.log(
  `${((performance.now() - started) / 1000).toFixed(0)} s in all; load average at the end ${load()} ` +
    '(1, 5, 15 min; this run itself keeps one to two cores busy)',
);
