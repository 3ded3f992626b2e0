import { writeFileSync } from 'node:fs';
import autocannon, { type Options, type Result } from 'autocannon';
import { nextMessage, SERVER_V8_FLAGS, start } from './child.ts';
import { functionTimes, type Profile } from './cpu-profile.ts';
import { runWrk, wrkInstalled } from './wrk.ts';

// A CPU profile of Flagstaff's GET /v1/flags/{key} under load, as the HTTP benchmark configures
// the server, over the load window only: `node bench/profile-http.ts [SECONDS] [ROWS]`. The load
// comes from wrk when it is installed (as in production, the server sets the pace), else from
// autocannon. Samples every 100 µs; prints the functions with the most self time, in µs of
// server CPU per request (their share of the busy samples × the CPU per request measured over
// the same window), and writes the whole profile for Chrome DevTools.

const seconds = Number(process.argv[2] ?? 8);
const rows = Number(process.argv[3] ?? 50);
const connections = 50;
const server = start('./servers/flagstaff.ts', {
  quiet: true,
  execArgv: SERVER_V8_FLAGS,
  env: {
    FLAGSTAFF_LOG_LEVEL: 'info',
    FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
    FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
  },
});
const ready = await nextMessage<{ url: string; headers: Record<string, string> }>(server, 'ready');
const client = wrkInstalled() ? 'wrk' : 'autocannon';

/** Loads the server for `duration` seconds; the requests answered with a 2xx. */
async function load(duration: number): Promise<number> {
  if (client === 'wrk') {
    const run = await runWrk({ url: ready.url, headers: ready.headers, connections, seconds: duration });
    if (run.failures !== undefined) throw new Error(run.failures);
    return run.ok;
  }
  const options: Options = { url: ready.url, headers: ready.headers, connections, duration };
  const result = await new Promise<Result>((resolve, reject) =>
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result))),
  );
  if (result.non2xx > 0) throw new Error(`${result.non2xx} responses not 2xx`);
  return result['2xx'];
}

async function serverCpu(): Promise<number> {
  const reply = nextMessage<{ usage: NodeJS.CpuUsage }>(server, 'cpu');
  server.send({ type: 'cpu' });
  const { usage } = await reply;
  return usage.user + usage.system;
}

await load(3);
const started = nextMessage(server, 'profile-started');
server.send({ type: 'profile-start', interval: 100 });
await started;
const cpuBefore = await serverCpu();
const requests = await load(seconds);
const cpuPerRequest = ((await serverCpu()) - cpuBefore) / requests;
const stopped = nextMessage<{ profile: Profile }>(server, 'profile');
server.send({ type: 'profile-stop' });
const { profile } = await stopped;
const exited = new Promise((resolve) => server.once('exit', resolve));
server.kill('SIGTERM');
await exited;

const { busy, self: byFunction } = functionTimes(profile);
console.log(
  `${client}, ${connections} connections, ${seconds} s: ${Math.round(requests / seconds)} requests/s, ` +
    `${cpuPerRequest.toFixed(1)} µs of server CPU per request (profiler running), ${busy} busy samples`,
);
console.log('   µs/req  share  self time of');
for (const [name, count] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  const share = count / busy;
  console.log(
    `${(share * cpuPerRequest).toFixed(2).padStart(9)}  ${(share * 100).toFixed(1).padStart(4)}%  ${name}`,
  );
}
writeFileSync('/tmp/flagstaff-http.cpuprofile', JSON.stringify(profile));
console.log('profile: /tmp/flagstaff-http.cpuprofile (open in Chrome DevTools)');
