import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import autocannon, { type Result } from 'autocannon';
import { nextMessage } from './child.ts';
import { median } from './stats.ts';

// Before and after on one machine at one time: the HTTP benchmark's Flagstaff server from
// another checkout (e.g. main) and from this one, and the bare route, loaded in turn with 50
// connections; prints each server's CPU per request (µs, from its process.cpuUsage()). On a
// shared machine this is steadier than requests/s, and comparing within one run cancels most of
// the load others put on the cores.
//   node bench/compare-http.ts /work/main [seconds per round] [rounds]

const [otherCheckout, secondsArg, roundsArg] = process.argv.slice(2);
if (otherCheckout === undefined)
  throw new Error('usage: node bench/compare-http.ts <other checkout> [seconds] [rounds]');
const seconds = Number(secondsArg ?? 4);
const rounds = Number(roundsArg ?? 5);
const env = {
  ...process.env,
  FLAGSTAFF_LOG_LEVEL: 'info',
  FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
  FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
};
const server = (module: string, args: string[] = []) =>
  fork(module, args, { execPath: process.execPath, env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
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

const cpu = async (child: ChildProcess) => {
  const reply = nextMessage<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
  child.send({ type: 'cpu' });
  const { usage } = await reply;
  return usage.user + usage.system;
};
const load = (url: string, headers: Record<string, string>, duration: number) =>
  new Promise<Result>((resolve, reject) =>
    autocannon({ url, headers, connections: 50, duration }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
const targets: Array<[name: string, ready: Ready, child: ChildProcess]> = [
  [otherCheckout, otherReady, other],
  ['this checkout', ourReady, ours],
  ['bare', { url: bareUrl.href, headers: ourReady.headers }, bare],
];
try {
  for (const [, ready] of targets) await load(ready.url, ready.headers, 2);
  const perRequest = new Map<string, number[]>(targets.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, ready, child] of targets) {
      const before = await cpu(child);
      const result = await load(ready.url, ready.headers, seconds);
      const after = await cpu(child);
      if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} non-2xx responses`);
      perRequest.get(name)?.push((after - before) / result['2xx']);
    }
  }
  for (const [name, values] of perRequest) {
    const rounded = values.map((v) => v.toFixed(0)).join(' ');
    console.log(
      `${name}: server CPU per request, median ${median(values).toFixed(1)} µs, best ${Math.min(...values).toFixed(1)} µs (rounds: ${rounded})`,
    );
  }
} finally {
  for (const [, , child] of targets) child.kill();
}
