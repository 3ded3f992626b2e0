import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// wrk (a load generator in C: Debian package `wrk`) as the HTTP benchmark's second client. It
// needs a fraction of the CPU autocannon needs for the same load, so the server, not the
// client, sets the pace, as with production clients (docs/performance.md, "Two clients").

export interface WrkRun {
  /** Responses with a 2xx status. */
  readonly ok: number;
  /** Responses with another status, connection errors and timeouts: any of these aborts a run. */
  readonly failures: string | undefined;
  /** Seconds wrk measured over. */
  readonly seconds: number;
  /** Latency percentiles, milliseconds. */
  readonly p50: number;
  readonly p99: number;
  /** CPU time wrk used, µs (user + system). */
  readonly loaderCpu: number;
}

/** Whether `wrk` runs here; checked once per process. */
export function wrkInstalled(): boolean {
  installed ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return installed;
}
let installed: boolean | undefined;

/** CPU µs of this process's waited-for children (Linux: /proc/self/stat cutime + cstime); 0 elsewhere. */
function childrenCpu(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the command: state, …, utime, stime, cutime, cstime (the 12th to 15th), in clock ticks (100/s).
    return (Number(fields[13]) + Number(fields[14])) * 10_000;
  } catch {
    return 0;
  }
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** "1.23ms" → 1.23 */
function milliseconds(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  return match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : Number.NaN;
}

/** Reads what `wrk --latency` prints; exported for its test. */
export function parseWrk(output: string): Omit<WrkRun, 'loaderCpu'> {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(output);
  if (total === null) throw new Error(`wrk printed no result:\n${output}`);
  const requests = Number(total[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(output)?.[1];
  const percentile = (p: string) => milliseconds(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)?.[1]);
  const failures = [
    ...(non2xx > 0 ? [`${non2xx} responses not 2xx`] : []),
    ...(socketErrors === undefined ? [] : [`socket errors: ${socketErrors}`]),
  ];
  return {
    ok: requests - non2xx,
    failures: failures.length === 0 ? undefined : failures.join('; '),
    seconds: milliseconds(`${total[2]}${total[3]}`) / 1000,
    p50: percentile('50'),
    p99: percentile('99'),
  };
}

/** One wrk run: one thread, `connections` kept-alive connections, GET `url` with `headers`. */
export async function runWrk(options: {
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}): Promise<WrkRun> {
  const headerArgs = Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency', ...headerArgs];
  const cpuBefore = childrenCpu();
  const output = await new Promise<string>((resolve, reject) => {
    const wrk = spawn('wrk', [...args, options.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    wrk.stdout.on('data', (chunk: Buffer) => {
      text += chunk;
    });
    wrk.stderr.on('data', (chunk: Buffer) => {
      text += chunk;
    });
    wrk.on('error', reject);
    wrk.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}:\n${text}`)),
    );
  });
  return { ...parseWrk(output), loaderCpu: childrenCpu() - cpuBefore };
}
