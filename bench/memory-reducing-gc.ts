import * as os from 'node:os';
import { nextMessage } from './child.ts';
import {
  type FlagstaffReady,
  type HttpOptions,
  load,
  type Run,
  startFlagstaffServer,
  stop,
  type Target,
} from './http.ts';
import { median, type Row } from './stats.ts';
import { wrkInstalled } from './wrk.ts';

// What a memory-reducing collection leaves the evaluation path (decision 2097): the HTTP
// benchmark's server three times, loaded in turn by wrk, server CPU a request: as it starts;
// after V8's most thorough collection (the kind its memory reducer runs once a node is quiet,
// here forced before the load); and the same with FLAGSTAFF_RELEASE_IDLE_MEMORY=off, without the
// workaround that keeps process.nextTick's shape alive through it.

const AS_STARTED = 'as started';
const AFTER_ONE = { FLAGSTAFF_BENCH_MEMORY_REDUCING_GC: '1' };

/** Each server but the first is judged against the first; `target`: the ratio it must stay within. */
const VARIANTS: readonly { name: string; env: Record<string, string>; target?: number; note?: string }[] = [
  { name: AS_STARTED, env: {} },
  { name: 'after a memory-reducing collection', env: AFTER_ONE, target: 1.1, note: 'the default' },
  {
    name: 'after one, FLAGSTAFF_RELEASE_IDLE_MEMORY=off',
    env: { ...AFTER_ONE, FLAGSTAFF_RELEASE_IDLE_MEMORY: 'off' },
    note: 'what the workaround saves',
  },
];

export async function memoryReducingCollectionCost(options: HttpOptions): Promise<Row[]> {
  if (!wrkInstalled()) return [];
  const servers = VARIANTS.map((variant) =>
    startFlagstaffServer(options.logLevel, { execArgv: ['--expose-gc'], env: variant.env }),
  );
  try {
    const targets: Target[] = [];
    for (const [i, server] of servers.entries()) {
      const ready = await nextMessage<FlagstaffReady>(server, 'ready');
      targets.push({ name: VARIANTS[i]?.name as string, url: ready.url, headers: ready.headers, server });
    }
    for (const target of targets) await load(target, options, options.warmupSeconds, 'wrk');
    const runs = new Map<string, Run[]>(targets.map((target) => [target.name, []]));
    for (let round = 1; round <= options.rounds; round++) {
      // Which goes first alternates: none is always the one loaded right after another.
      for (const target of round % 2 === 1 ? targets : [...targets].reverse())
        runs.get(target.name)?.push(await load(target, options, options.seconds, 'wrk'));
      const figures = targets.map(
        (t) => `${t.name} ${runs.get(t.name)?.at(-1)?.cpuPerRequest.toFixed(1)} µs`,
      );
      console.log(`\n  round ${round} (load ${os.loadavg()[0]?.toFixed(2)}): ${figures.join(', ')}`);
    }
    const cpu = (name: string) => median((runs.get(name) ?? []).map((run) => run.cpuPerRequest));
    const base = cpu(AS_STARTED);
    return VARIANTS.slice(1).map(({ name, target, note }) => {
      const ratio = cpu(name) / base;
      return {
        section: 'http',
        figure: `wrk: server CPU a request ${name} (ratio: ÷ ${AS_STARTED})`,
        value: `${cpu(name).toFixed(1)} µs`,
        baseline: `${base.toFixed(1)} µs ${AS_STARTED}`,
        ratio,
        target: target === undefined ? '' : `≤ ${target}×`,
        ...(target === undefined ? {} : { met: ratio <= target }),
        note: `${options.rounds} × ${options.seconds} s each, alternating, medians; ${note} (decision 2097)`,
      };
    });
  } finally {
    await Promise.all(servers.map((server) => stop(server)));
  }
}
