import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { isMain, nextMessage, SERVER_V8_FLAGS, sendResult, start } from './child.ts';
import { median, ms, type Row } from './stats.ts';

// Real-time delivery (docs/product.md §9, decision 0903), one node on loopback:
// 1. change → SSE message: a PATCH is sent, and the clock runs until the stream's client reads
//    the refetchEvaluation it causes. Baseline: the PATCH itself (until it is acknowledged).
// 2. 10,000 streams: the server's RSS growth per idle stream (baseline: its RSS with none), and
//    fan-out, from a PATCH to the last stream reading its message (baseline: the one-stream p50).
// 3. With FLAGSTAFF_BENCH_DATABASE_URL (PostgreSQL): two nodes on one schema, the stream held by
//    node B, the PATCH sent to node A (docs/product.md §9: < 100 ms p50 across nodes).
// The client is bounded: raw sockets opened 500 at a time, each reading only what it must.

const CHANGES = 30;
const STREAMS = Number(process.env.FLAGSTAFF_BENCH_STREAMS ?? 10_000);
const CONNECT_BATCH = 500;

export interface Ready {
  /** The node's origin. */
  readonly url: string;
  readonly adminKey: string;
  readonly secret: string;
  readonly flagId: string;
  readonly projectId: string;
}

/** What a RawStream sends and looks for: by default an OFREP event stream's. */
export interface RawStreamMarks {
  /** An API key, sent as a bearer token. */
  readonly authorization?: string;
  /** Once this has been read the stream counts as open. */
  readonly opened: string;
  /** Each occurrence is one message. */
  readonly message: string;
}

const OFREP_STREAM: RawStreamMarks = { opened: '\nid: ', message: 'refetchEvaluation' };

/** One SSE connection over a raw socket: counts messages, notes when the stream opened. */
export class RawStream {
  readonly socket: Socket;
  messages = 0;
  opened: Promise<void>;
  #onMessage: (() => void) | undefined;

  constructor(url: URL, marks: RawStreamMarks = OFREP_STREAM) {
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.setNoDelay(true);
    const authorization =
      marks.authorization === undefined ? '' : `Authorization: Bearer ${marks.authorization}\r\n`;
    this.socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${authorization}Accept: text/event-stream\r\n\r\n`,
    );
    let buffered = '';
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        if (buffered !== undefined && !buffered.includes(marks.opened)) {
          buffered += text;
          if (buffered.includes(marks.opened)) resolve();
        }
        let at = text.indexOf(marks.message);
        while (at !== -1) {
          this.messages++;
          this.#onMessage?.();
          at = text.indexOf(marks.message, at + 1);
        }
      });
    });
  }

  nextMessage(): Promise<void> {
    return new Promise((resolve) => {
      this.#onMessage = () => {
        this.#onMessage = undefined;
        resolve();
      };
    });
  }
}

/** Sends the PATCH to `origin` (a node; by default the one that set up) and returns how long it took to be acknowledged. */
export async function patch(ready: Ready, enabled: boolean, origin = ready.url): Promise<number> {
  const began = performance.now();
  const response = await fetch(`${origin}/v1/flags/${ready.flagId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ready.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ enabled }),
  });
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
  await response.text();
  return performance.now() - began;
}

/** The stream URL a bulk evaluation on `origin` hands out. */
async function streamUrlFrom(origin: string, secret: string): Promise<URL> {
  const bulk = await fetch(`${origin}/ofrep/v1/evaluate/flags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: '{"context":{"targetingKey":"bench"}}',
  });
  return new URL(((await bulk.json()) as { eventStreams: { url: string }[] }).eventStreams[0]?.url ?? '');
}

/** CHANGES PATCHes sent to `writeOrigin`, each timed until the stream at `streamUrl` reads its message. */
async function changeLatencies(ready: Ready, streamUrl: URL, writeOrigin: string) {
  const one = new RawStream(streamUrl);
  await one.opened;
  await new Promise((resolve) => setTimeout(resolve, 100));
  const latencies: number[] = [];
  const writes: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const arrived = one.nextMessage();
    const began = performance.now();
    writes.push(await patch(ready, i % 2 === 0, writeOrigin));
    await arrived;
    latencies.push(performance.now() - began);
  }
  one.socket.destroy();
  // What the push adds to each change: the message read after the PATCH was acknowledged
  // (negative when the message came first). The machine's load shows in the PATCH, not here.
  const added = latencies.map((latency, i) => latency - (writes[i] ?? 0));
  return {
    p50: median(latencies),
    max: Math.max(...latencies),
    write: median(writes),
    added: `after the PATCH's answer: p50 ${ms(median(added))}, max ${ms(Math.max(...added))}`,
  };
}

/** `count` streams made by `open`, CONNECT_BATCH at a time, once all are open. */
export async function openStreams(count: number, open: () => RawStream): Promise<RawStream[]> {
  const streams: RawStream[] = [];
  for (let i = 0; i < count; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, count - i) }, open);
    await Promise.all(batch.map((s) => s.opened));
    streams.push(...batch);
  }
  return streams;
}

/** The real-time benchmark's server (bench/servers/realtime.ts): its memory after a GC, as it reports it. */
export function serverMemory(server: ChildProcess) {
  server.send({ type: 'memory' });
  return nextMessage<{ rss: number; heapUsed: number; streams: number }>(server, 'memory');
}

async function oneNode(): Promise<Row[]> {
  // As shipped (npm start's V8 flags), so the RSS is what a deployment would see.
  const server = start('./servers/realtime.ts', {
    execArgv: ['--expose-gc', ...SERVER_V8_FLAGS],
    quiet: true,
  });
  try {
    const ready = await nextMessage<Ready>(server, 'ready');
    const memory = () => serverMemory(server);
    const streamUrl = await streamUrlFrom(ready.url, ready.secret);

    // 1. Latency on one stream.
    const { p50, max, write, added } = await changeLatencies(ready, streamUrl, ready.url);
    await new Promise((resolve) => setTimeout(resolve, 200));

    // 2. Many idle streams, then one change to all of them.
    const before = await memory();
    const streams = await openStreams(STREAMS, () => new RawStream(streamUrl));
    // Streams that connect right after a change are told to refetch once; let that settle.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await memory();
    const perStream = (after.rss - before.rss) / STREAMS;
    const heapPerStream = (after.heapUsed - before.heapUsed) / STREAMS;
    const arrivals = streams.map((s) => s.nextMessage());
    server.send({ type: 'time-fan-out', projectId: ready.projectId });
    const serverFanOut = nextMessage<{ ms: number; cpuMs: number }>(server, 'fan-out');
    const began = performance.now();
    await patch(ready, true);
    await Promise.all(arrivals);
    const fanOut = performance.now() - began;
    const written = await serverFanOut;
    for (const s of streams) s.socket.destroy();

    // The p50 and max figures of one stream differ only in the statistic and its target.
    const changeLatency = (statistic: string, value: number, targetMs: number, note: string): Row => ({
      section: 'realtime',
      figure: `change → SSE message on the client, one node, ${statistic} of ${CHANGES}`,
      value: ms(value),
      baseline: `${ms(write)} PATCH`,
      ratio: value / write,
      target: `< ${targetMs} ms`,
      met: value < targetMs,
      note,
    });
    return [
      changeLatency(
        'p50',
        p50,
        50,
        'from sending the PATCH to reading refetchEvaluation; baseline: the PATCH until acknowledged',
      ),
      changeLatency('max', max, 250, `the message ${added}`),
      {
        section: 'realtime',
        figure: `server RSS per idle SSE stream, ${STREAMS.toLocaleString('en')} streams`,
        value: `${(perStream / 1024).toFixed(1)} KB`,
        baseline: `${(before.rss / 1024 / 1024).toFixed(0)} MB RSS with none`,
        ratio: (after.rss - before.rss) / before.rss,
        target: '< 10 KB',
        met: perStream < 10 * 1024,
        note: `ratio: growth over the RSS with no streams; of it, JS heap ${(heapPerStream / 1024).toFixed(1)} KB per stream`,
      },
      {
        section: 'realtime',
        figure: `fan-out: PATCH → the last of ${STREAMS.toLocaleString('en')} streams reads its message`,
        value: ms(fanOut),
        baseline: `${ms(p50)} one stream`,
        ratio: fanOut / p50,
        target: '< 1 s',
        met: fanOut < 1000,
        note: `of it, the server writing the message to every stream: ${ms(written.ms)}, ${ms(written.cpuMs)} of CPU (${((written.cpuMs / STREAMS) * 1000).toFixed(1)} µs a stream)`,
      },
    ];
  } finally {
    server.kill();
  }
}

/** Node B holds the stream, node A takes the PATCH: the change reaches B through the change feed. */
async function acrossNodes(databaseUrl: string): Promise<Row[]> {
  const schema = `bench_realtime_${process.pid}`;
  const { openDatabase } = await import('../src/storage/open-database.ts');
  const { sql } = await import('kysely');
  const admin = openDatabase(databaseUrl).db;
  await sql`create schema if not exists ${sql.id(schema)}`.execute(admin);
  const nodes: ChildProcess[] = [];
  const node = (...args: string[]) => {
    const child = start('./servers/realtime.ts', {
      args: [`--database=${databaseUrl}`, `--schema=${schema}`, ...args],
      quiet: true,
    });
    nodes.push(child);
    return nextMessage<Ready>(child, 'ready');
  };
  try {
    const a = await node();
    const b = await node('--joining');
    const { p50, max, write, added } = await changeLatencies(a, await streamUrlFrom(b.url, a.secret), a.url);
    return [
      {
        section: 'realtime',
        figure: `change on node A → SSE message from node B, PostgreSQL, p50 of ${CHANGES}`,
        value: ms(p50),
        baseline: `${ms(write)} PATCH on A`,
        ratio: p50 / write,
        target: '< 100 ms',
        met: p50 < 100,
        note: 'from sending the PATCH to A to reading refetchEvaluation on a stream held by B; baseline: the PATCH until acknowledged',
      },
      {
        section: 'realtime',
        figure: `same, max of ${CHANGES}`,
        value: ms(max),
        baseline: '',
        ratio: Number.NaN,
        target: '',
        note: `the message on B ${added}`,
      },
    ];
  } finally {
    for (const child of nodes) child.kill();
    await Promise.all(nodes.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
    await admin.destroy();
  }
}

export async function realtimeBenchmark(databaseUrl?: string): Promise<Row[]> {
  const rows = await oneNode();
  if (databaseUrl !== undefined) rows.push(...(await acrossNodes(databaseUrl)));
  return rows;
}

if (isMain(import.meta.url)) {
  sendResult(
    await realtimeBenchmark(
      process.env.FLAGSTAFF_BENCH_DATABASE_URL ?? process.env.FLAGSTAFF_TEST_DATABASE_URL,
    ),
  );
}
