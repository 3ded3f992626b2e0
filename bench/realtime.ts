import { connect, type Socket } from 'node:net';
import { isMain, nextMessage, sendResult, start } from './child.ts';
import { median, ms, type Row } from './stats.ts';

// Real-time delivery (SPEC §9, issue 11), one node on loopback:
// 1. change → SSE message: a PATCH is sent, and the clock runs until the stream's client reads
//    the refetchEvaluation it causes. Baseline: the PATCH itself (until it is acknowledged).
// 2. 10,000 streams: the server's RSS growth per idle stream (baseline: its RSS with none), and
//    fan-out, from a PATCH to the last stream reading its message (baseline: the one-stream p50).
// The client is bounded: raw sockets opened 500 at a time, each reading only what it must.

const CHANGES = 30;
const STREAMS = Number(process.env.FLAGSTAFF_BENCH_STREAMS ?? 10_000);
const CONNECT_BATCH = 500;

interface Ready {
  readonly url: string;
  readonly adminKey: string;
  readonly secret: string;
  readonly flagId: string;
}

/** One SSE connection over a raw socket: counts refetchEvaluation messages, notes when the stream opened. */
class RawStream {
  readonly socket: Socket;
  messages = 0;
  opened: Promise<void>;
  #onMessage: (() => void) | undefined;

  constructor(url: URL) {
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.setNoDelay(true);
    this.socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    let buffered = '';
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        if (buffered !== undefined && !buffered.includes('\nid: ')) {
          buffered += text;
          if (buffered.includes('\nid: ')) resolve();
        }
        let at = text.indexOf('refetchEvaluation');
        while (at !== -1) {
          this.messages++;
          this.#onMessage?.();
          at = text.indexOf('refetchEvaluation', at + 1);
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

async function patch(ready: Ready, enabled: boolean): Promise<number> {
  const began = performance.now();
  const response = await fetch(`${ready.url}/v1/flags/${ready.flagId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ready.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ enabled }),
  });
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
  await response.text();
  return performance.now() - began;
}

export async function realtimeBenchmark(): Promise<Row[]> {
  const server = start('./servers/realtime.ts', { execArgv: ['--expose-gc'], quiet: true });
  try {
    const ready = await nextMessage<Ready>(server, 'ready');
    const memory = async () => {
      server.send({ type: 'memory' });
      return (await nextMessage<{ rss: number; streams: number }>(server, 'memory')).rss;
    };
    const bulk = await fetch(`${ready.url}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.secret}`, 'content-type': 'application/json' },
      body: '{"context":{"targetingKey":"bench"}}',
    });
    const streamUrl = new URL(
      ((await bulk.json()) as { eventStreams: { url: string }[] }).eventStreams[0]?.url ?? '',
    );

    // 1. Latency on one stream.
    const one = new RawStream(streamUrl);
    await one.opened;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const latencies: number[] = [];
    const writes: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const arrived = one.nextMessage();
      const began = performance.now();
      writes.push(await patch(ready, i % 2 === 0));
      await arrived;
      latencies.push(performance.now() - began);
    }
    one.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));

    // 2. Many idle streams, then one change to all of them.
    const rssBefore = await memory();
    const streams: RawStream[] = [];
    for (let i = 0; i < STREAMS; i += CONNECT_BATCH) {
      const batch = Array.from(
        { length: Math.min(CONNECT_BATCH, STREAMS - i) },
        () => new RawStream(streamUrl),
      );
      await Promise.all(batch.map((s) => s.opened));
      streams.push(...batch);
    }
    // Streams that connect right after a change are told to refetch once; let that settle.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rssAfter = await memory();
    const perStream = (rssAfter - rssBefore) / STREAMS;
    const arrivals = streams.map((s) => s.nextMessage());
    const began = performance.now();
    await patch(ready, true);
    await Promise.all(arrivals);
    const fanOut = performance.now() - began;
    for (const s of streams) s.socket.destroy();

    const p50 = median(latencies);
    const max = Math.max(...latencies);
    const write = median(writes);
    return [
      {
        section: 'realtime',
        figure: `change → SSE message on the client, one node, p50 of ${CHANGES}`,
        value: ms(p50),
        baseline: `${ms(write)} PATCH`,
        ratio: p50 / write,
        target: '< 50 ms',
        met: p50 < 50,
        note: 'from sending the PATCH to reading refetchEvaluation; baseline: the PATCH until acknowledged',
      },
      {
        section: 'realtime',
        figure: `change → SSE message on the client, one node, max of ${CHANGES}`,
        value: ms(max),
        baseline: `${ms(write)} PATCH`,
        ratio: max / write,
        target: '< 250 ms',
        met: max < 250,
      },
      {
        section: 'realtime',
        figure: `server RSS per idle SSE stream, ${STREAMS.toLocaleString('en')} streams`,
        value: `${(perStream / 1024).toFixed(1)} KB`,
        baseline: `${(rssBefore / 1024 / 1024).toFixed(0)} MB RSS with none`,
        ratio: (rssAfter - rssBefore) / rssBefore,
        target: '< 10 KB',
        met: perStream < 10 * 1024,
        note: 'ratio: growth over the RSS with no streams',
      },
      {
        section: 'realtime',
        figure: `fan-out: PATCH → the last of ${STREAMS.toLocaleString('en')} streams reads its message`,
        value: ms(fanOut),
        baseline: `${ms(p50)} one stream`,
        ratio: fanOut / p50,
        target: '< 1 s',
        met: fanOut < 1000,
      },
    ];
  } finally {
    server.kill();
  }
}

if (isMain(import.meta.url)) sendResult(await realtimeBenchmark());
