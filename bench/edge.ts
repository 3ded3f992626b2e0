import type { ChildProcess } from 'node:child_process';
import { nextMessage, SERVER_V8_FLAGS, start } from './child.ts';
import { type HttpOptions, load, type Run, stop, type Target } from './http.ts';
import { median, type Row, ratio, si } from './stats.ts';

/**
 * `npm run bench -- --only=edge`: the HTTP benchmark's evaluation, on a core node and on an edge
 * following it (SPEC §14), each in a process of its own, alternating rounds; requests/s and server
 * CPU per request side by side. Figures only.
 */
export async function edgeBenchmark(options: HttpOptions): Promise<Row[]> {
  const core = start('./servers/flagstaff.ts', {
    quiet: true,
    execArgv: SERVER_V8_FLAGS,
    env: {
      FLAGSTAFF_LOG_LEVEL: options.logLevel,
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
    },
  });
  let edge: ChildProcess | undefined;
  try {
    const ready = await nextMessage<{ url: string; headers: Record<string, string>; edgeKey: string }>(
      core,
      'ready',
    );
    const coreUrl = new URL(ready.url);
    edge = start('./servers/edge.ts', {
      quiet: true,
      execArgv: SERVER_V8_FLAGS,
      env: {
        FLAGSTAFF_LOG_LEVEL: 'warn',
        FLAGSTAFF_UPSTREAM_URL: coreUrl.origin,
        FLAGSTAFF_EDGE_KEY: ready.edgeKey,
        FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
      },
    });
    const { port } = await nextMessage<{ port: number }>(edge, 'ready');
    const edgeUrl = new URL(ready.url);
    edgeUrl.port = String(port);
    const [fromCore, fromEdge] = await Promise.all(
      [coreUrl, edgeUrl].map(async (url) => (await fetch(url, { headers: ready.headers })).text()),
    );
    if (fromCore !== fromEdge) throw new Error(`the edge answers ${fromEdge}, the core ${fromCore}`);
    const targets: Target[] = [
      { name: 'core', url: coreUrl.href, headers: ready.headers, server: core },
      { name: 'edge', url: edgeUrl.href, headers: ready.headers, server: edge },
    ];
    for (const target of targets) await load(target, options, options.warmupSeconds);
    const runs: Record<string, Run[]> = { core: [], edge: [] };
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of targets) runs[target.name]?.push(await load(target, options, options.seconds));
      const [c, e] = [runs.core?.at(-1), runs.edge?.at(-1)] as [Run, Run];
      console.log(
        `\n  round ${round}: core ${si(c.requestsPerSecond)}/s ${c.cpuPerRequest.toFixed(1)} µs, edge ${si(e.requestsPerSecond)}/s ${e.cpuPerRequest.toFixed(1)} µs`,
      );
    }
    const core_ = runs.core as Run[];
    const edge_ = runs.edge as Run[];
    const med = (list: Run[], f: (run: Run) => number) => median(list.map(f));
    const perRound = (f: (e: Run, c: Run) => number) => median(edge_.map((e, i) => f(e, core_[i] as Run)));
    const setup = `${options.connections} connections, ${options.rounds} × ${options.seconds} s, autocannon`;
    console.log(
      `\n  edge ÷ core: ${ratio(perRound((e, c) => e.requestsPerSecond / c.requestsPerSecond))} by requests/s (${setup})`,
    );
    return [
      {
        section: 'edge',
        figure: `evaluations/s on an edge (ratio: edge ÷ core; ${setup})`,
        value: `${si(med(edge_, (r) => r.requestsPerSecond))}/s`,
        baseline: `${si(med(core_, (r) => r.requestsPerSecond))}/s core`,
        ratio: perRound((e, c) => e.requestsPerSecond / c.requestsPerSecond),
        target: '',
      },
      {
        section: 'edge',
        figure: 'server CPU per evaluation on an edge (ratio: core ÷ edge)',
        value: `${med(edge_, (r) => r.cpuPerRequest).toFixed(1)} µs`,
        baseline: `${med(core_, (r) => r.cpuPerRequest).toFixed(1)} µs core`,
        ratio: perRound((e, c) => c.cpuPerRequest / e.cpuPerRequest),
        target: '',
      },
    ];
  } finally {
    await Promise.all([stop(core), edge ? stop(edge) : undefined]);
  }
}
