import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { nextMessage } from './child.ts';

// Instructions per request of GET /v1/flags/{key}, Flagstaff (as the HTTP benchmark runs it)
// against the bare route, counted by valgrind's callgrind over a fixed number of requests:
//   node bench/instructions-http.ts [REQUESTS] [other checkout…]
// On a shared machine requests/s and even CPU time per request move by 2× from one second to
// the next; instruction counts do not, so a change of a few per cent shows. They count user
// space only (the kernel's write per response is the same for both servers) and every thread
// (V8 compiles and collects garbage on threads of its own). Takes a few minutes per server.

const [requestsArg, ...otherCheckouts] = process.argv.slice(2);
const requests = Number(requestsArg ?? 20_000);
const here = fileURLToPath(new URL('..', import.meta.url));
const env = {
  ...process.env,
  FLAGSTAFF_LOG_LEVEL: 'info',
  FLAGSTAFF_RATE_LIMIT_EVALUATION: '10000000',
  FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
};

interface Ready {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** A server of the benchmark under callgrind, counting nothing until told to (`-z`). */
function underCallgrind(module: string, args: string[], outFile: string): ChildProcess {
  return fork(module, args, {
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      '--smc-check=all-non-file', // V8 writes the machine code it runs
      '--separate-threads=yes',
      `--callgrind-out-file=${outFile}`,
      process.execPath,
    ],
    env,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
}

const load = (ready: Ready, amount: number) =>
  new Promise<Result>((resolve, reject) =>
    autocannon({ url: ready.url, headers: ready.headers, connections: 10, amount }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );

/** Instructions per request over `requests` requests, after twice as many to warm the JIT. */
async function count(name: string, child: ChildProcess, ready: Ready, dir: string): Promise<number> {
  await load(ready, 2 * requests);
  execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
  const result = await load(ready, requests);
  if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} non-2xx responses`);
  execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
  child.kill('SIGKILL');
  let total = 0;
  for (const file of readdirSync(dir)) {
    const totals = /^totals: (\d+)$/m.exec(readFileSync(join(dir, file), 'utf8'));
    if (file.includes('.1-') && totals !== null) total += Number(totals[1]);
  }
  return total / requests;
}

async function flagstaff(checkout: string): Promise<{ perRequest: number; ready: Ready; body: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  const child = underCallgrind(join(checkout, 'bench/servers/flagstaff.ts'), [], join(dir, 'out'));
  const ready = await nextMessage<Ready>(child, 'ready');
  try {
    const body = await (await fetch(ready.url, { headers: ready.headers })).text();
    return { perRequest: await count(checkout, child, ready, dir), ready, body };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ours = await flagstaff(here);
const figures: Array<[string, number]> = [['this checkout', ours.perRequest]];
for (const checkout of otherCheckouts) figures.push([checkout, (await flagstaff(checkout)).perRequest]);

const bareDir = mkdtempSync(join(tmpdir(), 'callgrind-'));
const bare = underCallgrind(join(here, 'bench/servers/bare.ts'), [ours.body], join(bareDir, 'out'));
const { port } = await nextMessage<{ port: number }>(bare, 'ready');
const bareUrl = new URL(ours.ready.url);
bareUrl.port = String(port);
const barePerRequest = await count('bare', bare, { url: bareUrl.href, headers: ours.ready.headers }, bareDir);
rmSync(bareDir, { recursive: true, force: true });

for (const [name, perRequest] of figures) {
  console.log(
    `${name}: ${(perRequest / 1000).toFixed(1)} k instructions per request; bare ÷ this ${(barePerRequest / perRequest).toFixed(2)}×`,
  );
}
console.log(`bare Fastify route: ${(barePerRequest / 1000).toFixed(1)} k instructions per request`);
