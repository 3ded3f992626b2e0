import { fork } from 'node:child_process';
import * as os from 'node:os';
import { nextMessage, RUNTIME_ENVIRONMENT, SERVER_V8_FLAGS } from './child.ts';
import { type Client, HTTP_DEFAULTS, load, type Run, type Target } from './http.ts';
import { median } from './stats.ts';
import { wrkInstalled } from './wrk.ts';

// Before and after on one machine at one time: the HTTP benchmark's Flagstaff server from
// another checkout (e.g. main) and from this one, and the bare route, loaded in turn with 50
// connections by wrk (autocannon when wrk is not installed); prints each server's CPU per
// request (µs, from its process.cpuUsage()) round by round, and the medians. On a shared
// machine this is steadier than requests/s, and comparing within one run cancels most of the
// load others put on the cores.
//   node bench/compare-http.ts /work/main [seconds per round] [rounds]

const [otherCheckout, secondsArg, roundsArg] = process.argv.slice(2);
if (otherCheckout === undefined)
  throw new Error('usage: node bench/compare-http.ts <other checkout> [seconds] [rounds]');
const options = { ...HTTP_DEFAULTS, seconds: Number(secondsArg ?? 4), rounds: Number(roundsArg ?? 5) };
const client: Client = wrkInstalled() ? 'wrk' : 'autocannon';
const env = {
  ...RUNTIME_ENVIRONMENT,
  ...process.env,
  FLAGSTAFF_LOG_LEVEL: 'info',
  FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
  FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
};
const server = (module: string, args: string[] = []) =>
  fork(module, args, {
    execPath: process.execPath,
    execArgv: SERVER_V8_FLAGS,
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
type Ready = { url: string; headers: Record<string, string> };

const other = server(`${otherCheckout}/bench/servers/flagstaff.ts`);
const ours = server(new URL('./servers/flagstaff.ts', import.meta.url).pathname);
const [otherReady, ourReady] = await Promise.all([
  nextMessage<Ready>(other, 'ready'),
  nextMessage<Ready>(ours, 'ready'),
]);
const body = await (await fetch(ourReady.url, { headers: ourReady.headers })).text();
const otherBody = await (await fetch(otherReady.url, { headers: otherReady.headers })).text();
if (body !== otherBody) throw new Error(`the servers answer differently: ${otherBody} / ${body}`);
const bare = server(new URL('./servers/bare.ts', import.meta.url).pathname, [body]);
const { port } = await nextMessage<{ port: number }>(bare, 'ready');
const bareUrl = new URL(ourReady.url);
bareUrl.port = String(port);

const targets: Target[] = [
  { name: otherCheckout, ...otherReady, server: other },
  { name: 'this checkout', ...ourReady, server: ours },
  { name: 'bare', url: bareUrl.href, headers: ourReady.headers, server: bare },
];
try {
  console.log(
    `${client}, load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const target of targets) await load(target, options, 2, client);
  const runs = new Map<string, Run[]>(targets.map((target) => [target.name, []]));
  for (let round = 1; round <= options.rounds; round++) {
    const figures: string[] = [];
    for (const target of targets) {
      const run = await load(target, options, options.seconds, client);
      runs.get(target.name)?.push(run);
      figures.push(`${target.name} ${run.cpuPerRequest.toFixed(1)} µs`);
    }
    console.log(`round ${round} (load ${os.loadavg()[0]?.toFixed(2)}): ${figures.join(', ')}`);
  }
  for (const [name, values] of runs) {
    const perRequest = values.map((run) => run.cpuPerRequest);
    const rate = median(values.map((run) => run.requestsPerSecond));
    console.log(
      `${name}: server CPU per request, median ${median(perRequest).toFixed(1)} µs, best ${Math.min(...perRequest).toFixed(1)} µs; ${Math.round(rate)} requests/s`,
    );
  }
} finally {
  for (const target of targets) target.server.kill();
}
