import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { manyFlagKey } from '../test/support/many-flags.ts';
import { runAdmin } from '../test/support/postgres-admin.ts';
import { benchPostgresUrl, nextMessage, runPart, SERVER_V8_FLAGS, start } from './child.ts';
import { type HttpOptions, stop } from './http.ts';
import type { PartMemory } from './scale-memory.ts';
import type { ScaleMemory } from './servers/scale.ts';
import { mb, median, ms, type Row } from './stats.ts';
import { runWrk, wrkInstalled } from './wrk.ts';

// Scale on a real server (issue 40): the default project filled with 1,000, 10,000 and 50,000
// flags by flagd import in batches of 500 (the issue's shape), then a fresh node started over
// that database as `npm start` starts it (its V8 flags; --expose-gc so that memory is read after
// a forced GC). Per size: time to ready; RSS and heap; the OFREP bulk answer plain and
// compressed; evaluation p50/p99 under wrk with one flag changed per second against none,
// rounds alternating in one run; a change's latency. SQLite (a file) always; PostgreSQL for
// the time to ready when FLAGSTAFF_BENCH_DATABASE_URL (or FLAGSTAFF_TEST_DATABASE_URL) is set.

export const SCALE_SIZES = [1_000, 10_000, 50_000] as const;
const EXEC_ARGV = [...SERVER_V8_FLAGS, '--expose-gc'];
const CONTEXT = { targetingKey: 'user-42', plan: 'pro' };

export interface Ready {
  readonly origin: string;
  readonly evaluatorKey: string;
  readonly adminKey: string;
  readonly readyMs: number;
  readonly serveMs: number;
}

export function startServer(databaseUrl: string, args: string[] = []): ChildProcess {
  return start('./servers/scale.ts', {
    quiet: true,
    execArgv: EXEC_ARGV,
    args,
    env: { FLAGSTAFF_DATABASE_URL: databaseUrl, FLAGSTAFF_LOG_LEVEL: 'warn' },
  });
}

async function memoryOf(server: ChildProcess): Promise<ScaleMemory> {
  const reply = nextMessage<{ memory: ScaleMemory }>(server, 'memory');
  server.send({ type: 'memory' });
  return (await reply).memory;
}

/** Fills a database by import in a node of its own, which then stops: what the import left is measured there, `quietMs` later. */
export async function populate(
  databaseUrl: string,
  flags: number,
  quietMs = 0,
): Promise<{ importMs: number; memory: ScaleMemory }> {
  const server = startServer(databaseUrl, [`--import=${flags}`, `--quiet-ms=${quietMs}`]);
  try {
    return await nextMessage<{ importMs: number; memory: ScaleMemory }>(server, 'imported');
  } finally {
    await stop(server);
  }
}

/** The OFREP bulk answer's size as sent in `coding` (Content-Length; fetch decodes the body itself). */
async function bulkAnswer(ready: Ready, coding: string): Promise<{ bytes: number; text: string }> {
  const response = await fetch(`${ready.origin}/ofrep/v1/evaluate/flags`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ready.evaluatorKey}`,
      'content-type': 'application/json',
      'accept-encoding': coding,
    },
    body: JSON.stringify({ context: CONTEXT }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`bulk answered ${response.status}: ${text.slice(0, 200)}`);
  return { bytes: Number(response.headers.get('content-length')), text };
}

/** Median ms of compressing `body` as the server does (bench-side, the same zlib settings). */
async function compressionMs(body: string): Promise<{ br: number; gzip: number }> {
  const time = async (compress: () => Promise<Buffer>) => {
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const began = performance.now();
      await compress();
      runs.push(performance.now() - began);
    }
    return median(runs);
  };
  return {
    br: await time(() =>
      promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
    ),
    gzip: await time(() => promisify(gzip)(body)),
  };
}

/** Changes the `n`th flag of a sequence spread over all `flags` (its default variant flips); answers the PATCH's latency, ms. */
export async function changeOneFlag(ready: Ready, flags: number, n: number): Promise<number> {
  const key = manyFlagKey((n * 7919) % flags);
  const began = performance.now();
  const response = await fetch(`${ready.origin}/v1/projects/default/flags/${key}?environment=production`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ready.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ defaultVariant: n % 2 === 0 ? 'on' : 'off' }),
  });
  await response.text();
  if (response.status !== 200) throw new Error(`PATCH ${key}: ${response.status}`);
  return performance.now() - began;
}

/** Changes one flag a second until stopped; answers each change's latency. */
function changeEverySecond(ready: Ready, flags: number): { stop: () => number[] } {
  const latencies: number[] = [];
  let n = 0;
  const change = async () => latencies.push(await changeOneFlag(ready, flags, n++));
  const timer = setInterval(() => void change(), 1000);
  return {
    stop: () => {
      clearInterval(timer);
      return latencies;
    },
  };
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly rate: number;
}

/** wrk on one flag's evaluation (GET /v1/flags/{key}), rounds alternating: no change and one change a second, each first in every other round. */
async function latencyUnderChanges(
  ready: Ready,
  flags: number,
  options: HttpOptions,
): Promise<{ quiet: Latency[]; changing: Latency[]; changeMs: number[] }> {
  const url = `${ready.origin}/v1/flags/${manyFlagKey(1)}?attributes=${encodeURIComponent(JSON.stringify(CONTEXT))}`;
  const load = async (seconds: number): Promise<Latency> => {
    const run = await runWrk({
      url,
      headers: { authorization: `Bearer ${ready.evaluatorKey}`, 'x-flagstaff-project': 'default' },
      connections: options.connections,
      seconds,
    });
    if (run.failures !== undefined) throw new Error(`wrk: ${run.failures}`);
    return { p50: run.p50, p99: run.p99, rate: run.ok / run.seconds };
  };
  await load(options.warmupSeconds);
  const quiet: Latency[] = [];
  const changing: Latency[] = [];
  const changeMs: number[] = [];
  const withChanges = async () => {
    const changes = changeEverySecond(ready, flags);
    changing.push(await load(options.seconds));
    changeMs.push(...changes.stop());
  };
  // Which goes first alternates too (ABBA): neither is always the one right after the other.
  for (let round = 0; round < options.rounds; round++) {
    if (round % 2 === 1) await withChanges();
    quiet.push(await load(options.seconds));
    if (round % 2 === 0) await withChanges();
  }
  return { quiet, changing, changeMs };
}

/**
 * How long a node is left quiet after its bulk answer before its memory is read (the issue
 * measured 15 s later): V8's reducer looks 8 s after the start's last full collection and
 * collects at its next look once allocation fell (FLAGSTAFF_RELEASE_IDLE_MEMORY, decision 2097).
 */
const QUIET_MS = 22_000;

/** What one size measured on SQLite. */
interface SizeFigures {
  readonly flags: number;
  readonly imported: { importMs: number; memory: ScaleMemory } | undefined;
  readonly ready: Ready;
  readonly idle: ScaleMemory;
  readonly afterBulk: ScaleMemory;
  readonly bulk: { plain: number; br: number; gzip: number; brMs: number; gzipMs: number };
  readonly latency: Awaited<ReturnType<typeof latencyUnderChanges>> | undefined;
  /** The same node QUIET_MS after its bulk answer. */
  readonly quiet: ScaleMemory;
}

async function measureSize(databaseUrl: string, flags: number, options: HttpOptions): Promise<SizeFigures> {
  const imported = flags > 0 ? await populate(databaseUrl, flags, QUIET_MS) : undefined;
  const server = startServer(databaseUrl);
  try {
    const ready = await nextMessage<Ready>(server, 'ready');
    const idle = await memoryOf(server);
    const plain = await bulkAnswer(ready, 'identity');
    const [br, gz] = [await bulkAnswer(ready, 'br'), await bulkAnswer(ready, 'gzip')];
    const cost = await compressionMs(plain.text);
    const afterBulk = await memoryOf(server);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const quiet = await memoryOf(server);
    const latency =
      flags > 0 && wrkInstalled() ? await latencyUnderChanges(ready, flags, options) : undefined;
    return {
      flags,
      imported,
      ready,
      idle,
      afterBulk,
      bulk: { plain: plain.bytes, br: br.bytes, gzip: gz.bytes, brMs: cost.br, gzipMs: cost.gzip },
      latency,
      quiet,
    };
  } finally {
    await stop(server);
  }
}

/** Time to ready over PostgreSQL: a database of its own per size, filled by import, then a fresh node. */
async function postgresReady(url: string, flags: number): Promise<{ readyMs: number; rss: number }> {
  const name = `flagstaff_scale_${flags}_${process.pid}`;
  await runAdmin(url, `create database ${name}`);
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${name}`;
  try {
    await populate(databaseUrl.href, flags);
    const server = startServer(databaseUrl.href);
    try {
      const ready = await nextMessage<Ready>(server, 'ready');
      return { readyMs: ready.readyMs, rss: (await memoryOf(server)).rss };
    } finally {
      await stop(server);
    }
  } finally {
    await runAdmin(url, `drop database if exists ${name} with (force)`);
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const heapNote = (m: ScaleMemory) =>
  `heap used ${mb(m.heapUsed)}, heap total ${mb(m.heapTotal)}, external ${mb(m.external)}; RSS anonymous ${mb(m.anonymous)}, file-backed ${mb(m.file)}`;

function sizeRows(size: SizeFigures, empty: SizeFigures): Row[] {
  const { flags, afterBulk, quiet, ready, bulk, latency, imported } = size;
  const label = `${flags.toLocaleString('en')} flags`;
  const perFlag = (now: number, before: number) => `${((now - before) / flags / 1024).toFixed(2)} KB/flag`;
  const rows: Row[] = [
    {
      section: 'scale',
      figure: `${label}: RSS after a forced GC, ${QUIET_MS / 1000} s quiet after the bulk answer (fresh node)`,
      value: mb(quiet.rss),
      baseline: `${mb(empty.quiet.rss)} empty`,
      ratio: quiet.rss / empty.quiet.rss,
      target: flags === 10_000 ? '< 150 MB' : '',
      ...(flags === 10_000 ? { met: quiet.rss < 150 * 2 ** 20 } : {}),
      note: `${heapNote(quiet)}; growth over the empty node ${perFlag(quiet.rss, empty.quiet.rss)} RSS, ${perFlag(quiet.heapUsed, empty.quiet.heapUsed)} heap used`,
    },
    {
      section: 'scale',
      figure: `${label}: RSS after a forced GC, right after the bulk answer`,
      value: mb(afterBulk.rss),
      baseline: `${mb(quiet.rss)} quiet`,
      ratio: afterBulk.rss / quiet.rss,
      target: '',
      note: `before V8's memory reducer gave the start's freed pages back (decision 2097); ${heapNote(afterBulk)}`,
    },
    {
      section: 'scale',
      figure: `${label}: time to ready from SQLite (process start to listening, all loaded)`,
      value: ms(ready.readyMs),
      baseline: `${ms(empty.ready.readyMs)} empty`,
      ratio: ready.readyMs / empty.ready.readyMs,
      target: flags === 50_000 ? '< 5 s' : '',
      ...(flags === 50_000 ? { met: ready.readyMs < 5000 } : {}),
      note: `serve() itself ${ms(ready.serveMs)}`,
    },
    {
      section: 'scale',
      figure: `${label}: OFREP bulk answer, br (gzip)`,
      value: `${kb(bulk.br)} (${kb(bulk.gzip)})`,
      baseline: `${kb(bulk.plain)} plain`,
      ratio: bulk.plain / bulk.br,
      target: flags === 10_000 ? '< 150 KB' : '',
      ...(flags === 10_000 ? { met: Math.max(bulk.br, bulk.gzip) < 150 * 1024 } : {}),
      note: `ratio: plain ÷ br; compressing it once costs ${ms(bulk.brMs)} br, ${ms(bulk.gzipMs)} gzip (then served from the cache per ETag)`,
    },
  ];
  if (imported !== undefined) {
    rows.push({
      section: 'scale',
      figure: `${label}: the node that imported them, RSS after a forced GC ${QUIET_MS / 1000} s later (the issue's measure)`,
      value: mb(imported.memory.rss),
      baseline: `${mb(quiet.rss)} fresh`,
      ratio: imported.memory.rss / quiet.rss,
      target: '',
      note: `import ${ms(imported.importMs)} in batches of 500; ${heapNote(imported.memory)}`,
    });
  }
  if (latency !== undefined) {
    const med = (runs: Latency[], f: (l: Latency) => number) => median(runs.map(f));
    const p99Ratio = med(latency.changing, (l) => l.p99) / med(latency.quiet, (l) => l.p99);
    rows.push(
      {
        section: 'scale',
        figure: `${label}: evaluation p99 under wrk, one change a second (none)`,
        value: ms(med(latency.changing, (l) => l.p99)),
        baseline: `${ms(med(latency.quiet, (l) => l.p99))} none`,
        ratio: p99Ratio,
        target: '≤ 1.2×',
        met: p99Ratio <= 1.2,
        note: `p50 ${ms(med(latency.changing, (l) => l.p50))} (${ms(med(latency.quiet, (l) => l.p50))} none); ${Math.round(med(latency.changing, (l) => l.rate))}/s (${Math.round(med(latency.quiet, (l) => l.rate))}/s none); ratio: with ÷ without, medians of rounds alternating`,
      },
      {
        section: 'scale',
        figure: `${label}: one flag changed (PATCH under load: write, snapshot patch, answer)`,
        value: ms(median(latency.changeMs)),
        baseline: '',
        ratio: Number.NaN,
        target: '',
        note: `${latency.changeMs.length} changes, max ${ms(Math.max(...latency.changeMs))}`,
      },
    );
  }
  return rows;
}

/** The heap of each part of a node's evaluation state, and a change's snapshot work, at one size. */
function partRows(parts: PartMemory): Row[] {
  const perFlag = (bytes: number) => `${(bytes / parts.flags / 1024).toFixed(2)} KB`;
  const label = `${parts.flags.toLocaleString('en')} flags`;
  return [
    {
      section: 'scale',
      figure: `${label}: heap per flag: stored / compiled (${parts.environments} environments) / results served`,
      value: `${perFlag(parts.stored)} / ${perFlag(parts.compiled)} / ${perFlag(parts.evaluated)}`,
      baseline: '',
      ratio: Number.NaN,
      target: '',
      note: `in all ${mb(parts.stored)} / ${mb(parts.compiled)} / ${mb(parts.evaluated)} (bench/scale-memory.ts)`,
    },
    {
      section: 'scale',
      figure: `${label}: snapshot work of one change (withFlag into every environment, median)`,
      value: ms(parts.patchMs),
      baseline: '',
      ratio: Number.NaN,
      target: '',
    },
    {
      section: 'scale',
      figure: `${label}: flagd sync's document after one change (kept flag texts joined, median)`,
      value: ms(parts.flagdChangeMs),
      baseline: `${ms(parts.flagdWholeMs)} exported and stringified whole`,
      ratio: parts.flagdWholeMs / parts.flagdChangeMs,
      target: '',
      note: 'ratio: whole ÷ after one change (decision 2094)',
    },
  ];
}

export async function scaleServerBenchmark(
  options: HttpOptions,
  sizes: readonly number[] = SCALE_SIZES,
): Promise<Row[]> {
  const folder = mkdtempSync(join(tmpdir(), 'flagstaff-scale-'));
  const rows: Row[] = [];
  try {
    const empty = await measureSize(`sqlite:${join(folder, 'empty.db')}`, 0, options);
    for (const flags of sizes) {
      const databaseUrl = `sqlite:${join(folder, `${flags}.db`)}`;
      const size = await measureSize(databaseUrl, flags, options);
      const parts = await runPart<PartMemory>('./scale-memory.ts', {
        execArgv: EXEC_ARGV,
        args: [`--database=${databaseUrl}`],
      });
      console.log(`\n  ${flags} flags measured (load ${os.loadavg()[0]?.toFixed(2)})`);
      rows.push(...sizeRows(size, empty), ...partRows(parts));
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const url = benchPostgresUrl();
  if (url !== undefined) {
    for (const flags of sizes) {
      const { readyMs, rss } = await postgresReady(url, flags);
      rows.push({
        section: 'scale',
        figure: `${flags.toLocaleString('en')} flags: time to ready from PostgreSQL`,
        value: ms(readyMs),
        baseline: '',
        ratio: Number.NaN,
        target: flags === 50_000 ? '< 5 s' : '',
        ...(flags === 50_000 ? { met: readyMs < 5000 } : {}),
        note: `RSS after a forced GC ${mb(rss)}`,
      });
    }
  }
  if (!wrkInstalled()) console.log('\nwrk is not installed: no latency figures.');
  return rows;
}
