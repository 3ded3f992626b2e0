import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { parseArgs } from 'node:util';
import { manyFlagKey } from '../test/support/many-flags.ts';
import { nextMessage } from './child.ts';
import { busyStretches, functionTimes, type Profile } from './cpu-profile.ts';
import { stop } from './http.ts';
import { changeOneFlag, populate, type Ready, startServer } from './scale-http.ts';
import { median } from './stats.ts';
import { runWrk } from './wrk.ts';

// What one flag change costs a node's event loop (issue 40, "steady latency while flags change"):
// `node bench/change-cost.ts [--flags=10000] [--changes=20] [--database=/tmp/f.db] [--rows=25] [--load=8]`.
// Over a SQLite file filled as the scale benchmark fills it (flagd import of N flags; kept when
// --database names a file that exists, so that 50,000 flags are imported once), a fresh node
// (bench/servers/scale.ts, started as `npm start` starts it) is sent one PATCH at a time with
// nothing else to do, as bench/scale-http.ts sends them under load. Per change: the longest
// synchronous stretch of the node's event loop (monitorEventLoopDelay, 1 ms timer: what every
// evaluation waiting behind it waits) and the CPU time of the node's main thread (what a busy
// machine's scheduling does not inflate). Then a CPU profile of as many changes again, sampled
// every 100 µs: the functions with the most time per change, and the busy stretches (the whole
// profile goes to /tmp/flagstaff-change.cpuprofile). With --load=S: wrk on one flag's evaluation
// for S seconds without changes, then S seconds with one change a second, each profiled: what
// the changes added to the node's main thread, per second, function by function.

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '10000' },
    changes: { type: 'string', default: '20' },
    database: { type: 'string' },
    rows: { type: 'string', default: '25' },
    load: { type: 'string' },
  },
});
const flags = Number(values.flags);
const rows = Number(values.rows);
const file = values.database ?? `${os.tmpdir()}/flagstaff-change-${flags}.db`;
const databaseUrl = `sqlite:${file}`;
if (!existsSync(file)) {
  console.log(`importing ${flags} flags into ${file} …`);
  await populate(databaseUrl, flags);
}

const ask = async <T>(server: ChildProcess, type: string, answer: string, extra: object = {}) => {
  const reply = nextMessage<T>(server, answer);
  server.send({ type, ...extra });
  return reply;
};
/** The CPU µs of the node's main thread (its event loop) so far. */
const cpuOf = async (server: ChildProcess) => {
  const { thread } = await ask<{ thread: NodeJS.CpuUsage }>(server, 'cpu', 'cpu');
  return thread.user + thread.system;
};
const profiled = async (server: ChildProcess, work: () => Promise<void>): Promise<Profile> => {
  await ask(server, 'profile-start', 'profile-started', { interval: 100 });
  await work();
  return (await ask<{ profile: Profile }>(server, 'profile-stop', 'profile')).profile;
};
/** Lets what a change deferred (a turn later, on a timer) run before the window closes. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
const fixed = (value: number) => value.toFixed(2);
const load1 = () => os.loadavg()[0]?.toFixed(2);

const server = startServer(databaseUrl);
try {
  const ready = await nextMessage<Ready>(server, 'ready');
  const next = counter();
  // The first PATCHes compile the route's serializers and warm the JIT: not what a change costs.
  for (let i = 0; i < 5; i++) await changeOneFlag(ready, flags, next());
  await settle();
  if (values.load === undefined) await changesAlone(server, ready, next, Number(values.changes));
  else await changesUnderLoad(server, ready, next, Number(values.load));
} finally {
  await stop(server);
}

type Collections = Record<string, { count: number; ms: number; maxMs: number }>;
/** What bench/servers/profiling.ts answers to `loop-stop`. */
interface LoopReading {
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly collections: Collections;
}

/** Collections by kind over `per` (changes, seconds): how many and how long each, the longest of all. */
function collectionsText(readings: readonly Collections[], per: number): string {
  const all: Collections = {};
  for (const reading of readings)
    for (const [kind, { count, ms, maxMs }] of Object.entries(reading)) {
      const seen = all[kind] ?? { count: 0, ms: 0, maxMs: 0 };
      all[kind] = seen;
      seen.count += count;
      seen.ms += ms;
      seen.maxMs = Math.max(seen.maxMs, maxMs);
    }
  const kinds = Object.entries(all).map(
    ([kind, { count, ms, maxMs }]) =>
      `${kind} ${(count / per).toFixed(2)} × (${fixed(ms / per)} ms, longest ${fixed(maxMs)} ms)`,
  );
  return kinds.length === 0 ? 'none' : kinds.join('; ');
}

function counter(): () => number {
  let n = 0;
  return () => n++;
}

async function changesAlone(server: ChildProcess, ready: Ready, next: () => number, changes: number) {
  const blocked: number[] = [];
  const collected: Collections[] = [];
  const cpu: number[] = [];
  const latency: number[] = [];
  for (let i = 0; i < changes; i++) {
    await ask(server, 'loop-start', 'loop-started');
    const cpuBefore = await cpuOf(server);
    latency.push(await changeOneFlag(ready, flags, next()));
    await settle();
    cpu.push((await cpuOf(server)) - cpuBefore);
    const loop = await ask<LoopReading>(server, 'loop-stop', 'loop');
    blocked.push(loop.maxMs);
    collected.push(loop.collections);
  }
  console.log(
    `${flags} flags, ${changes} changes, load ${load1()}: ` +
      `longest block of the loop per change median ${fixed(median(blocked))} ms, max ${fixed(Math.max(...blocked))} ms; ` +
      `main-thread CPU per change median ${fixed(median(cpu) / 1000)} ms; PATCH latency median ${fixed(median(latency))} ms`,
  );
  console.log(`garbage collection per change: ${collectionsText(collected, changes)}`);
  const profile = await profiled(server, async () => {
    for (let i = 0; i < changes; i++) {
      await changeOneFlag(ready, flags, next());
      await settle();
    }
  });
  writeFileSync('/tmp/flagstaff-change.cpuprofile', JSON.stringify(profile));
  printProfile(profile, changes);
}

/** wrk for `seconds` without changes, then with one a second: requests, p99, the loop's delay, main-thread CPU, profiles. */
async function changesUnderLoad(server: ChildProcess, ready: Ready, next: () => number, seconds: number) {
  const url = `${ready.origin}/v1/flags/${manyFlagKey(1)}?attributes=${encodeURIComponent(JSON.stringify({ targetingKey: 'user-42', plan: 'pro' }))}`;
  const headers = { authorization: `Bearer ${ready.evaluatorKey}`, 'x-flagstaff-project': 'default' };
  const wrk = (duration: number) => runWrk({ url, headers, connections: 50, seconds: duration });
  await wrk(3);
  const windows: Array<{ profile: Profile; cpu: number; requests: number }> = [];
  for (const changing of [false, true]) {
    const cpuBefore = await cpuOf(server);
    await ask(server, 'loop-start', 'loop-started');
    let timer: NodeJS.Timeout | undefined;
    let requests = 0;
    const profile = await profiled(server, async () => {
      if (changing) timer = setInterval(() => void changeOneFlag(ready, flags, next()), 1000);
      const run = await wrk(seconds);
      clearInterval(timer);
      requests = run.ok;
      const loop = await ask<LoopReading>(server, 'loop-stop', 'loop');
      console.log(
        `${changing ? 'one change a second' : 'no changes'}, load ${load1()}: ${Math.round(run.ok / run.seconds)}/s, ` +
          `p50 ${fixed(run.p50)} ms, p99 ${fixed(run.p99)} ms; loop delay max ${fixed(loop.maxMs)} ms, p99 ${fixed(loop.p99Ms)} ms; ` +
          `garbage collection per second: ${collectionsText([loop.collections], seconds)}`,
      );
    });
    windows.push({ profile, cpu: (await cpuOf(server)) - cpuBefore, requests });
  }
  const [none, changes] = windows as [(typeof windows)[0], (typeof windows)[0]];
  const perRequest = (w: typeof none) => `${((w.cpu / w.requests) * 1000).toFixed(0)} ns`;
  console.log(
    `main-thread CPU per second: ${fixed(none.cpu / seconds / 1000)} ms without changes, ${fixed(changes.cpu / seconds / 1000)} ms with; ` +
      `per request ${perRequest(none)} without, ${perRequest(changes)} with`,
  );
  printDifference(none, changes, seconds);
}

function printProfile(profile: Profile, count: number): void {
  const { busy, self, total } = functionTimes(profile);
  const interval = median(profile.timeDeltas.slice(1)) / 1000;
  const perChange = (samples: number) => ((samples * interval) / count).toFixed(2).padStart(8);
  const stretches = busyStretches(profile).sort((a, b) => b - a);
  console.log(
    `profile: ${perChange(busy).trim()} ms busy per change (sampled every ${(interval * 1000).toFixed(0)} µs); ` +
      `longest busy stretches ${stretches
        .slice(0, 8)
        .map((us) => (us / 1000).toFixed(1))
        .join(', ')} ms`,
  );
  const top = (times: Map<string, number>) => [...times].sort((a, b) => b[1] - a[1]).slice(0, rows);
  console.log(' ms/change  self time of');
  for (const [name, samples] of top(self)) console.log(`${perChange(samples)}  ${name}`);
  console.log(' ms/change  total time in (callees included)');
  for (const [name, samples] of top(total)) console.log(`${perChange(samples)}  ${name}`);
}

/**
 * The functions whose time (callees included) the changes raised most, ms per second of load:
 * the time with changes less what as many requests took without them.
 */
function printDifference(
  without: { readonly profile: Profile; readonly requests: number },
  withChanges: { readonly profile: Profile; readonly requests: number },
  seconds: number,
): void {
  const times = ({ profile }: { readonly profile: Profile }, scale: number) => {
    const interval = median(profile.timeDeltas.slice(1)) / 1000;
    const { total, self } = functionTimes(profile);
    const perSecond = (map: Map<string, number>) =>
      new Map([...map].map(([name, samples]) => [name, (samples * interval * scale) / seconds]));
    return { total: perSecond(total), self: perSecond(self) };
  };
  const [a, b] = [times(without, withChanges.requests / without.requests), times(withChanges, 1)];
  for (const kind of ['self', 'total'] as const) {
    const grown = [...b[kind]]
      .map(([name, msPerSecond]) => [name, msPerSecond - (a[kind].get(name) ?? 0)] as const)
      .sort((x, y) => y[1] - x[1])
      .slice(0, rows);
    console.log(
      ` ms/s more with changes than as many requests without (${kind === 'self' ? 'self time' : 'callees included'})`,
    );
    for (const [name, more] of grown) console.log(`${more.toFixed(2).padStart(8)}  ${name}`);
  }
}
