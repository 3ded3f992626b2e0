import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { COMPILE_CACHE, MALLOC_ARENAS, V8_FLAGS } from '../bin/runtime-settings.js';
import { type Row, ratio } from './stats.ts';

/** Whether the module at `url` (its import.meta.url) is the process's entry point. */
export function isMain(url: string): boolean {
  return process.argv[1] === fileURLToPath(url);
}

/** The V8 flags `npm start` runs the server with (bin/flagstaff.js re-executes itself with them). */
export const SERVER_V8_FLAGS = V8_FLAGS;

/**
 * The rest of how `npm start` runs Node (bin/runtime-settings.js): two malloc arenas, and the
 * compile cache it enables (here by Node's own variable, as these processes start without
 * bin/flagstaff.js). Every bench process gets them: servers as shipped, clients alike.
 */
export const RUNTIME_ENVIRONMENT = { MALLOC_ARENA_MAX: MALLOC_ARENAS, NODE_COMPILE_CACHE: COMPILE_CACHE };

/** Starts a bench module in a process of its own, on this Node (process.execPath), with an IPC channel. */
export function start(
  module: string,
  options: { args?: string[]; execArgv?: string[]; env?: Record<string, string>; quiet?: boolean } = {},
): ChildProcess {
  return fork(fileURLToPath(new URL(module, import.meta.url)), options.args ?? [], {
    execPath: process.execPath,
    execArgv: options.execArgv ?? [],
    env: { ...RUNTIME_ENVIRONMENT, ...process.env, ...options.env },
    // A quiet child's standard output (a server's first-start notices) is dropped; errors still show.
    stdio: ['ignore', options.quiet ? 'ignore' : 'inherit', 'inherit', 'ipc'],
  });
}

/** The next message of a given `type` from a child; rejects if the child exits first. */
export function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string }) => {
      if (message?.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`benchmark process exited with ${code} before sending "${type}"`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Runs a bench module to completion in its own process and returns what it sent as `result`. */
export async function runPart<T>(
  module: string,
  options: { execArgv?: string[]; args?: string[] } = {},
): Promise<T> {
  const child = start(module, options);
  const { value } = await nextMessage<{ value: T }>(child, 'result');
  await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  return value;
}

/** In a child started by `runPart`: hands the result to the parent and lets the process end. */
export function sendResult(value: unknown): void {
  process.send?.({ type: 'result', value }, () => process.disconnect());
}

/** A bench module's figures: handed to `runPart` when it started the module, else printed. */
export function report(rows: readonly Row[]): void {
  if (process.send) sendResult(rows);
  else
    for (const row of rows)
      console.log(`${row.figure}: ${row.value} vs ${row.baseline} (${ratio(row.ratio)})`);
}

/** The PostgreSQL a bench measures too, when one is named. */
export const benchPostgresUrl = (): string | undefined =>
  process.env.FLAGSTAFF_BENCH_DATABASE_URL || process.env.FLAGSTAFF_TEST_DATABASE_URL || undefined;
