import { nextMessage, start } from './child.ts';
import { type HttpOptions, load, type Run, stop, type Target } from './http.ts';
import { median, type Row, ratio, si } from './stats.ts';

// Decision 1052's cost of counting: GET /v1/flags/{key} on two Flagstaff servers that differ only in
// FLAGSTAFF_INSIGHTS (on: every evaluation counted per flag, variant, reason and minute, flushed
// every 10 s; off: not counted). Same harness as http.ts: processes of their own, runs alternating
// A B B A A B …, medians; the ratio is counting on ÷ counting off, round by round.

async function startFlagstaff(name: string, insights: 'on' | 'off', logLevel: string): Promise<Target> {
  const server = start('./servers/flagstaff.ts', {
    quiet: true,
    env: {
      FLAGSTAFF_LOG_LEVEL: logLevel,
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
      FLAGSTAFF_INSIGHTS: insights,
    },
  });
  const ready = await nextMessage<{ url: string; headers: Record<string, string> }>(server, 'ready');
  return { name, url: ready.url, headers: ready.headers, server };
}

export async function insightsHttpBenchmark(options: HttpOptions): Promise<Row[]> {
  const targets: Target[] = [];
  try {
    targets.push(await startFlagstaff('counting on', 'on', options.logLevel));
    targets.push(await startFlagstaff('counting off', 'off', options.logLevel));
    for (const target of targets) await load(target, options, options.warmupSeconds);
    const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
    // Which server goes first alternates too: on this shared machine the first run of a round was
    // seen to get more CPU, whichever server it was.
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) runs.get(target.name)?.push(await load(target, options, options.seconds));
    }
    const on = runs.get('counting on') as Run[];
    const off = runs.get('counting off') as Run[];
    const perRound = on.map((run, i) => run.requestsPerSecond / (off[i] as Run).requestsPerSecond);
    const rps = (list: Run[]) => median(list.map((r) => r.requestsPerSecond));
    // Server CPU per request: what counting costs, and much less disturbed than throughput when other
    // processes share the cores (throughput then swings with the scheduler, CPU time hardly).
    const cpuPerRequest = (run: Run) => (run.serverCpu * 1e6) / run.requestsPerSecond;
    const cpuRatios = on.map((run, i) => cpuPerRequest(off[i] as Run) / cpuPerRequest(run));
    const cpu = (list: Run[]) => median(list.map(cpuPerRequest));
    return [
      {
        section: 'insights',
        figure: 'GET /v1/flags/{key} with per-flag counting, requests/s',
        value: si(rps(on)),
        baseline: `${si(rps(off))} counting off`,
        ratio: median(perRound),
        target: '≥ 0.97',
        met: median(perRound) >= 0.97,
        note: `${options.connections} connections, ${options.rounds} × ${options.seconds} s each, alternating, medians; rounds ${ratio(Math.min(...perRound))}–${ratio(Math.max(...perRound))}`,
      },
      {
        section: 'insights',
        figure: 'server CPU per request with counting (ratio: off ÷ on)',
        value: `${cpu(on).toFixed(0)} µs`,
        baseline: `${cpu(off).toFixed(0)} µs counting off`,
        ratio: median(cpuRatios),
        target: '≥ 0.97',
        met: median(cpuRatios) >= 0.97,
        note: `same runs; rounds ${ratio(Math.min(...cpuRatios))}–${ratio(Math.max(...cpuRatios))}`,
      },
    ];
  } finally {
    await Promise.all(targets.map((t) => stop(t.server)));
  }
}
