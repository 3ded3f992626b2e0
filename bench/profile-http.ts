import { writeFileSync } from 'node:fs';
import autocannon, { type Options, type Result } from 'autocannon';
import { nextMessage, start } from './child.ts';

// A CPU profile of Flagstaff's GET /v1/flags/{key} under load, as the HTTP benchmark configures
// the server, over the load window only: `node bench/profile-http.ts [SECONDS] [ROWS]`. Prints
// the functions with the most self time and writes the whole profile for Chrome DevTools.

const run = (options: Options) =>
  new Promise<Result>((resolve, reject) =>
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result))),
  );
const seconds = Number(process.argv[2] ?? 8);
const server = start('./servers/flagstaff.ts', {
  quiet: true,
  env: { FLAGSTAFF_LOG_LEVEL: 'info', FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000' },
});
const ready = await nextMessage<{ url: string; headers: Record<string, string> }>(server, 'ready');
await run({ url: ready.url, headers: ready.headers, connections: 50, duration: 3 });
const started = nextMessage(server, 'profile-started');
server.send({ type: 'profile-start' });
await started;
const result = await run({
  url: ready.url,
  headers: ready.headers,
  connections: 50,
  duration: seconds,
});
const stopped = nextMessage<{ profile: Profile }>(server, 'profile');
server.send({ type: 'profile-stop' });
const { profile } = await stopped;
console.log(`${Math.round(result['2xx'] / result.duration)} requests/s, non-2xx ${result.non2xx}`);
const exited = new Promise((resolve) => server.once('exit', resolve));
server.kill('SIGTERM');
await exited;

interface Profile {
  nodes: Array<{ callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }>;
}
const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0);
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*node_modules\//, '').replace(/^.*\/src\//, 'src/');
  const name = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.hitCount);
}
for (const [name, hits] of [...byFunction]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(process.argv[3] ?? 50))) {
  console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
}
writeFileSync('/tmp/flagstaff-http.cpuprofile', JSON.stringify(profile));
console.log('profile: /tmp/flagstaff-http.cpuprofile (open in Chrome DevTools)');
