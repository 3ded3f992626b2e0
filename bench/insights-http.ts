import { nextMessage, start } from './child.ts';
import { type HttpOptions, load, type Run, stop, type Target } from './http.ts';
import { median, type Row, ratio, si } from './stats.ts';

// Issue 14's cost of counting: GET /v1/flags/{key} on two Flagstaff servers that differ only in
// FLAGSTAFF_INSIGHTS (on: every evaluation counted per flag, variant, reason and minute, flushed
// every 10 s; off: not counted). Same harness as http.ts: processes of their own, runs alternating
// A B A B …, medians; the ratio is counting on ÷ counting off.

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
    for (let round = 0; round < options.rounds; round++) {
      for (const target of targets) runs.get(target.name)?.push(await load(target, options, options.seconds));
    }
    const on = runs.get('counting on') as Run[];
    const off = runs.get('counting off') as Run[];
    const perRound = on.map((run, i) => run.requestsPerSecond / (off[i] as Run).requestsPerSecond);
    const rps = (list: Run[]) => median(list.map((r) => r.requestsPerSecond));
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
    ];
  } finally {
    await Promise.all(targets.map((t) => stop(t.server)));
  }
}
