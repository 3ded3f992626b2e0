import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { nextMessage, start } from './child.ts';
import { mb, type Row } from './stats.ts';

// Soak (docs/performance.md): GET /v1/flags/{key} under steady load for 60 s on the Flagstaff server of
// the HTTP benchmark (npm start's wiring, log level info), sampling the server's RSS (from
// /proc, as the kernel counts it) and its V8 heap every 5 s. Native memory that grows under
// load shows as RSS rising while the heap stays flat.

export interface SoakOptions {
  readonly seconds: number;
  readonly connections: number;
  readonly logLevel: string;
  /** V8 flags for the server (e.g. --max-semi-space-size=16). */
  readonly execArgv?: readonly string[];
}

/** The kernel's view of a process's resident memory, in bytes. */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

export async function soakBenchmark(options: SoakOptions): Promise<Row[]> {
  const server = start('./servers/flagstaff.ts', {
    quiet: true,
    execArgv: [...(options.execArgv ?? [])],
    env: { FLAGSTAFF_LOG_LEVEL: options.logLevel, FLAGSTAFF_RATE_LIMIT_EVALUATION: '0' },
  });
  try {
    const ready = await nextMessage<{ url: string; headers: Record<string, string> }>(server, 'ready');
    const pid = server.pid as number;
    const heapOf = async () => {
      const reply = nextMessage<{ heapUsed: number; newSpace: number }>(server, 'memory');
      server.send({ type: 'memory' });
      return await reply;
    };
    const samples: { at: number; rss: number; heap: number; newSpace: number }[] = [];
    const began = performance.now();
    const sample = async () => {
      const { heapUsed, newSpace } = await heapOf();
      samples.push({ at: (performance.now() - began) / 1000, rss: rssOf(pid), heap: heapUsed, newSpace });
    };
    await sample();
    const timer = setInterval(() => void sample(), 5000);
    let requests = 0;
    await new Promise<void>((resolve, reject) =>
      autocannon(
        {
          url: ready.url,
          headers: ready.headers,
          connections: options.connections,
          duration: options.seconds,
        },
        (error, result) => {
          if (error) return reject(error);
          requests = result['2xx'];
          resolve();
        },
      ),
    );
    clearInterval(timer);
    await sample();
    // Growth after the first 10 s (warm-up: JIT, pools, buffers reaching their size).
    const warm = samples.find((s) => s.at >= 10) ?? (samples[0] as (typeof samples)[number]);
    const last = samples[samples.length - 1] as (typeof samples)[number];
    const perSecond = (last.rss - warm.rss) / Math.max(1, last.at - warm.at);
    console.log(
      `\nsoak: RSS / heap over ${options.seconds} s (${requests} requests):\n` +
        samples
          .map(
            (s) =>
              `  ${s.at.toFixed(0).padStart(3)} s  RSS ${mb(s.rss)}  heap used ${mb(s.heap)}  V8 young generation ${mb(s.newSpace)}`,
          )
          .join('\n'),
    );
    return [
      {
        section: 'soak',
        figure: `RSS growth under ${options.seconds} s of evaluation load, after 10 s warm-up${options.execArgv?.length ? `, node ${options.execArgv.join(' ')}` : ''}`,
        value: `${(perSecond / 1024 / 1024).toFixed(3)} MiB/s`,
        baseline: `${mb(warm.rss)} at ${warm.at.toFixed(0)} s`,
        ratio: last.rss / warm.rss,
        target: 'flat (< 0.05 MiB/s)',
        met: perSecond < 0.05 * 1024 * 1024,
        note: `RSS ${mb(samples[0]?.rss ?? 0)} → ${mb(last.rss)}; heap used ${mb(warm.heap)} → ${mb(last.heap)}; young generation ${mb(warm.newSpace)} → ${mb(last.newSpace)}; ratio: final RSS / RSS after warm-up`,
      },
    ];
  } finally {
    server.kill();
  }
}
