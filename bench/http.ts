import type { ChildProcess } from 'node:child_process';
import autocannon, { type Result } from 'autocannon';
import { nextMessage, SERVER_V8_FLAGS, start } from './child.ts';
import { median, ms, quantile, type Row, ratio, si } from './stats.ts';

// HTTP: GET /v1/flags/{key} on Flagstaff as shipped (auth on, the evaluation rate limit on with a
// budget too high to refuse anything, /metrics on, log level info with request logging as
// shipped; the targeted flag, ten attributes) against a bare Fastify route returning the same
// JSON, with 50 connections (decision 0207). Each server runs in a process of its own; the load
// generator (autocannon) runs here. Runs alternate, A B A B …; medians.

export interface HttpOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
  /** FLAGSTAFF_LOG_LEVEL for the Flagstaff server. */
  readonly logLevel: string;
}

export const HTTP_DEFAULTS: HttpOptions = {
  connections: 50,
  seconds: 4,
  rounds: 5,
  warmupSeconds: 3,
  logLevel: 'info',
};

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly server: ChildProcess;
}

export interface Run {
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** Share of one core the server used, and the load generator. */
  readonly serverCpu: number;
  readonly loaderCpu: number;
  /** Server CPU time per answered request, µs: what a request costs, even on a busy machine. */
  readonly cpuPerRequest: number;
}

async function serverCpu(server: ChildProcess): Promise<number> {
  const reply = nextMessage<{ usage: NodeJS.CpuUsage }>(server, 'cpu');
  server.send({ type: 'cpu' });
  const { usage } = await reply;
  return usage.user + usage.system;
}

export async function load(target: Target, options: HttpOptions, seconds: number): Promise<Run> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const cpuBefore = await serverCpu(target.server);
  const loaderBefore = process.cpuUsage();
  const began = performance.now();
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      { url: target.url, headers: target.headers, connections: options.connections, duration: seconds },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    // autocannon's own histogram has 1 ms resolution; these are the float milliseconds it measured.
    instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      if (status === 200) latencies.push(responseTime);
      else statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
  });
  const wallMicros = (performance.now() - began) * 1000;
  const loader = process.cpuUsage(loaderBefore);
  const cpuAfter = await serverCpu(target.server);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${target.name}: ${result.non2xx} non-2xx responses (${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}), ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: result['2xx'] / result.duration,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    serverCpu: (cpuAfter - cpuBefore) / wallMicros,
    cpuPerRequest: (cpuAfter - cpuBefore) / Math.max(1, result['2xx']),
    loaderCpu: (loader.user + loader.system) / wallMicros,
  };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function httpBenchmark(options: HttpOptions = HTTP_DEFAULTS): Promise<Row[]> {
  const flagstaffServer = start('./servers/flagstaff.ts', {
    quiet: true,
    execArgv: SERVER_V8_FLAGS,
    env: {
      FLAGSTAFF_LOG_LEVEL: options.logLevel,
      // On, as shipped, with a budget no run can reach: the limiter's cost is measured, never a 429.
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
    },
  });
  let bareServer: ChildProcess | undefined;
  try {
    const ready = await nextMessage<{ url: string; headers: Record<string, string> }>(
      flagstaffServer,
      'ready',
    );
    const first = await fetch(ready.url, { headers: ready.headers });
    const body = await first.text();
    if (first.status !== 200) throw new Error(`Flagstaff answered ${first.status}: ${body}`);

    bareServer = start('./servers/bare.ts', { quiet: true, args: [body] });
    const { port } = await nextMessage<{ port: number }>(bareServer, 'ready');
    const bareUrl = new URL(ready.url);
    bareUrl.port = String(port);
    const bareBody = await (await fetch(bareUrl, { headers: ready.headers })).text();
    if (bareBody !== body) throw new Error(`the baseline answers ${bareBody}, Flagstaff ${body}`);

    const targets: Target[] = [
      { name: 'flagstaff', url: ready.url, headers: ready.headers, server: flagstaffServer },
      { name: 'bare', url: bareUrl.href, headers: ready.headers, server: bareServer },
    ];
    for (const target of targets) await load(target, options, options.warmupSeconds);
    const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const target of targets) runs.get(target.name)?.push(await load(target, options, options.seconds));
    }

    const ours = runs.get('flagstaff') as Run[];
    const bare = runs.get('bare') as Run[];
    const perRound = (f: (a: Run, b: Run) => number) => ours.map((run, i) => f(run, bare[i] as Run));
    const throughput = perRound((a, b) => a.requestsPerSecond / b.requestsPerSecond);
    const med = (runs: Run[], f: (run: Run) => number) => median(runs.map(f));
    const cpu = (runs: Run[]) =>
      `${Math.round(med(runs, (r) => r.serverCpu) * 100)}% server, ${Math.round(med(runs, (r) => r.loaderCpu) * 100)}% load generator`;
    // The latency figures differ only in the percentile they read.
    const latency = (percentile: 'p50' | 'p99') => ({
      section: 'http',
      figure: `${percentile} latency (ratio: bare ÷ flagstaff)`,
      value: ms(med(ours, (r) => r[percentile])),
      baseline: `${ms(med(bare, (r) => r[percentile]))} bare`,
      ratio: median(perRound((a, b) => b[percentile] / a[percentile])),
      target: '',
    });
    const setup = `${options.connections} connections, ${options.rounds} × ${options.seconds} s each, alternating, medians; log level ${options.logLevel}`;
    return [
      {
        section: 'http',
        figure: 'GET /v1/flags/{key}, requests/s',
        value: si(med(ours, (r) => r.requestsPerSecond)),
        baseline: `${si(med(bare, (r) => r.requestsPerSecond))} bare`,
        ratio: median(throughput),
        target: '≥ 0.6 (goal 0.85)',
        met: median(throughput) >= 0.6,
        note: `${setup}; rounds ${ratio(Math.min(...throughput))}–${ratio(Math.max(...throughput))}; CPU (of one core): Flagstaff runs ${cpu(ours)}; bare runs ${cpu(bare)}`,
      },
      {
        section: 'http',
        figure: 'server CPU per request (ratio: bare ÷ flagstaff)',
        value: `${Math.round(med(ours, (r) => r.cpuPerRequest))} µs`,
        baseline: `${Math.round(med(bare, (r) => r.cpuPerRequest))} µs bare`,
        ratio: median(perRound((a, b) => b.cpuPerRequest / a.cpuPerRequest)),
        target: '',
        note: 'the throughput ratio a machine with a core to spare for each server would show; steadier than requests/s when other processes share the cores',
      },
      latency('p50'),
      latency('p99'),
    ];
  } finally {
    await Promise.all([stop(flagstaffServer), bareServer ? stop(bareServer) : undefined]);
  }
}
