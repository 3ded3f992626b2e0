import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { nextMessage, SERVER_V8_FLAGS, start } from './child.ts';
import {
  type FlagstaffReady,
  type HttpOptions,
  load,
  type Run,
  startFlagstaffServer,
  stop,
  type Target,
} from './http.ts';
import { openStreams, patch, RawStream, type Ready, serverMemory } from './realtime.ts';
import { median, ms, type Row, ratio, si } from './stats.ts';

/**
 * `npm run bench -- --only=edge` (SPEC §14), figures only:
 * 1. The HTTP benchmark's evaluation on an edge (`flagstaff edge` as shipped, following a core)
 *    against the core node itself; then the edge with FLAGSTAFF_WORKERS=2 against 1. Each server
 *    in processes of its own, alternating rounds; requests/s and server CPU per request.
 * 2. One core holding 1,000 edge upstream streams (simulated edges on raw sockets): its RSS per
 *    stream, and the fan-out of one change to all of them against the latency to one.
 */
export async function edgeBenchmark(options: HttpOptions): Promise<Row[]> {
  const core = startFlagstaffServer(options.logLevel);
  const edges: EdgeProcess[] = [];
  const rows: Row[] = [];
  try {
    const ready = await nextMessage<FlagstaffReady>(core, 'ready');
    const coreUrl = new URL(ready.url);
    for (const workers of [1, 2]) edges.push(await startEdgeProcess(coreUrl, ready, workers));
    const [one, two] = edges as [EdgeProcess, EdgeProcess];
    const fromCore = await (await fetch(coreUrl, { headers: ready.headers })).text();
    for (const edge of edges) {
      const fromEdge = await (await fetch(edge.target.url, { headers: ready.headers })).text();
      if (fromEdge !== fromCore)
        throw new Error(`${edge.target.name} answers ${fromEdge}, the core ${fromCore}`);
    }
    const coreTarget: Target = { name: 'core', url: coreUrl.href, headers: ready.headers, server: core };
    rows.push(
      ...pairRows(await alternate(one.target, coreTarget, options), options, {
        what: 'an edge',
        against: 'core',
      }),
      ...pairRows(await alternate(two.target, one.target, options), options, {
        what: 'an edge with FLAGSTAFF_WORKERS=2',
        against: '1 worker',
      }),
    );
  } finally {
    await Promise.all([stop(core), ...edges.map((edge) => edge.stop())]);
  }
  rows.push(...(await edgeStreams()));
  return rows;
}

/** `flagstaff edge` as the CLI starts it, with its workers: the target to load, and its stop. */
interface EdgeProcess {
  readonly target: Target;
  stop(): Promise<void>;
}

async function startEdgeProcess(core: URL, ready: FlagstaffReady, workers: number): Promise<EdgeProcess> {
  const cache = mkdtempSync(join(os.tmpdir(), 'flagstaff-bench-edge-'));
  const child = spawn(process.execPath, [join(import.meta.dirname, '../bin/flagstaff.js'), 'edge'], {
    env: {
      ...process.env,
      FLAGSTAFF_UPSTREAM_URL: core.origin,
      FLAGSTAFF_EDGE_KEY: ready.edgeKey,
      FLAGSTAFF_EDGE_CACHE: cache,
      FLAGSTAFF_WORKERS: String(workers),
      FLAGSTAFF_HOST: '127.0.0.1',
      FLAGSTAFF_PORT: '0',
      FLAGSTAFF_LOG_LEVEL: 'warn',
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      const origins = [...out.matchAll(/edge is listening: (http:\/\/[\d.:]+)/g)].map((m) => m[1]);
      if (origins.length === workers) resolve(origins[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`the edge exited with ${code}: ${out}`)));
  });
  const url = new URL(core.href);
  url.port = new URL(origin).port;
  return {
    target: {
      name: workers === 1 ? 'edge' : `edge ×${workers}`,
      url: url.href,
      headers: ready.headers,
      server: child,
      cpu: async () => processTreeCpu(child.pid as number),
    },
    async stop() {
      await stop(child);
      rmSync(cache, { recursive: true, force: true });
    },
  };
}

const CLOCK_TICK_MICROS = 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU time (µs) of a process and its children (node:cluster's workers), from /proc. */
function processTreeCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MICROS;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return (
    own +
    (children === '' ? 0 : children.split(' ').reduce((sum, child) => sum + processTreeCpu(Number(child)), 0))
  );
}

/** `measured` and `baseline` loaded in turn, after a warm-up each, `options.rounds` times. */
async function alternate(measured: Target, baseline: Target, options: HttpOptions) {
  const targets = [measured, baseline];
  for (const target of targets) await load(target, options, options.warmupSeconds);
  const runs: [Run[], Run[]] = [[], []];
  for (let round = 1; round <= options.rounds; round++) {
    const [a, b] = [
      await load(measured, options, options.seconds),
      await load(baseline, options, options.seconds),
    ];
    runs[0].push(a);
    runs[1].push(b);
    const figures = (target: Target, run: Run) =>
      `${target.name} ${si(run.requestsPerSecond)}/s ${run.cpuPerRequest.toFixed(1)} µs`;
    console.log(
      `\n  round ${round} (load ${os.loadavg()[0]?.toFixed(2)}): ${figures(measured, a)}, ${figures(baseline, b)}`,
    );
  }
  return { measured: runs[0], baseline: runs[1] };
}

/** Requests/s and server CPU per evaluation of `measured` against `baseline`, ratios per round. */
function pairRows(
  runs: { measured: Run[]; baseline: Run[] },
  options: HttpOptions,
  names: { what: string; against: string },
): Row[] {
  const perRound = (f: (m: Run, b: Run) => number) =>
    median(runs.measured.map((m, i) => f(m, runs.baseline[i] as Run)));
  const med = (list: Run[], f: (run: Run) => number) => median(list.map(f));
  const throughput = perRound((m, b) => m.requestsPerSecond / b.requestsPerSecond);
  const setup = `${options.connections} connections, ${options.rounds} × ${options.seconds} s, autocannon; load ${os.loadavg()[0]?.toFixed(2)} on ${os.availableParallelism()} cores`;
  console.log(`\n  ${names.what} ÷ ${names.against}: ${ratio(throughput)} by requests/s (${setup})`);
  return [
    {
      section: 'edge',
      figure: `evaluations/s on ${names.what} (ratio: ÷ ${names.against}; ${setup})`,
      value: `${si(med(runs.measured, (r) => r.requestsPerSecond))}/s`,
      baseline: `${si(med(runs.baseline, (r) => r.requestsPerSecond))}/s ${names.against}`,
      ratio: throughput,
      target: '',
    },
    {
      section: 'edge',
      figure: `server CPU per evaluation on ${names.what} (ratio: ${names.against} ÷)`,
      value: `${med(runs.measured, (r) => r.cpuPerRequest).toFixed(1)} µs`,
      baseline: `${med(runs.baseline, (r) => r.cpuPerRequest).toFixed(1)} µs ${names.against}`,
      ratio: perRound((m, b) => b.cpuPerRequest / m.cpuPerRequest),
      target: '',
    },
  ];
}

const EDGE_STREAMS = Number(process.env.FLAGSTAFF_BENCH_EDGE_STREAMS ?? 1_000);
const ONE_STREAM_CHANGES = 10;

/** The edge upstream stream as an edge opens it, over a raw socket: open at `ready`, a message per project sent. */
const edgeStream = (ready: Ready & { edgeKey: string }) => () =>
  new RawStream(new URL('/v1/edge/stream', ready.url), {
    authorization: ready.edgeKey,
    opened: 'event: ready',
    message: 'event: project',
  });

/** One core (the real-time benchmark's server) holding EDGE_STREAMS edge streams: memory, and a change's fan-out. */
async function edgeStreams(): Promise<Row[]> {
  const server: ChildProcess = start('./servers/realtime.ts', {
    execArgv: ['--expose-gc', ...SERVER_V8_FLAGS],
    quiet: true,
  });
  try {
    const ready = await nextMessage<Ready & { edgeKey: string }>(server, 'ready');
    const open = edgeStream(ready);
    const [one] = await openStreams(1, open);
    const latencies: number[] = [];
    for (let i = 0; i < ONE_STREAM_CHANGES; i++) {
      const arrived = one?.nextMessage();
      const began = performance.now();
      await patch(ready, i % 2 === 0);
      await arrived;
      latencies.push(performance.now() - began);
    }
    one?.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));

    const before = await serverMemory(server);
    const streams = await openStreams(EDGE_STREAMS, open);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await serverMemory(server);
    const arrivals = streams.map((stream) => stream.nextMessage());
    const began = performance.now();
    await patch(ready, true);
    await Promise.all(arrivals);
    const fanOut = performance.now() - began;
    for (const stream of streams) stream.socket.destroy();

    const perStream = (after.rss - before.rss) / EDGE_STREAMS;
    const oneStream = median(latencies);
    const count = EDGE_STREAMS.toLocaleString('en');
    console.log(
      `\n  ${count} edge streams: ${(perStream / 1024).toFixed(1)} KB RSS each; a change to all ${ms(fanOut)}, to one ${ms(oneStream)}`,
    );
    return [
      {
        section: 'edge',
        figure: `core RSS per edge upstream stream, ${count} streams`,
        value: `${(perStream / 1024).toFixed(1)} KB`,
        baseline: `${(before.rss / 1024 / 1024).toFixed(0)} MB RSS with none`,
        ratio: (after.rss - before.rss) / before.rss,
        target: '',
        note: `ratio: growth over the RSS with no streams; of it, JS heap ${((after.heapUsed - before.heapUsed) / EDGE_STREAMS / 1024).toFixed(1)} KB per stream`,
      },
      {
        section: 'edge',
        figure: `fan-out: PATCH → the last of ${count} edge streams reads the project`,
        value: ms(fanOut),
        baseline: `${ms(oneStream)} one stream (p50 of ${ONE_STREAM_CHANGES})`,
        ratio: fanOut / oneStream,
        target: '',
        note: 'each stream is sent the changed project whole (decision 1981), built once for all',
      },
    ];
  } finally {
    server.kill();
  }
}
