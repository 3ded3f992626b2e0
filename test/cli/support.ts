import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');

export interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
}

/** The line `flagstaff serve` prints once it listens: the API's base URL comes first. */
const LISTENING = /Flagstaff is listening: API (http:\/\/127\.0\.0\.1:\d+)\/v1/;

/** Runs `flagstaff serve` as an operator would (with `node`, default the test's), and waits until it listens. */
export function serve(env: Record<string, string>, node = process.execPath): Promise<Started> {
  const child = spawn(node, [BIN, 'serve'], {
    env: { ...process.env, FLAGSTAFF_PORT: '0', FLAGSTAFF_LOG_LEVEL: 'info', ...env },
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${out}`)), 45_000);
    child.stdout.on('data', () => {
      const match = LISTENING.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] as string, output: () => out });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

/** SIGTERM, as a supervisor sends it; resolves with the exit code. */
export const stop = (started: Started) =>
  new Promise<number | null>((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });

/** A Node older than 24 on this machine (the system's, found as `which -a node` would), if any. */
export function olderSystemNode(): string | undefined {
  const candidates = [
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node')),
    '/usr/bin/node',
    '/usr/local/bin/node',
  ];
  for (const candidate of new Set(candidates)) {
    if (!existsSync(candidate)) continue;
    try {
      const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
      if (Number(version.split('.')[0]) < 24) return candidate;
    } catch {
      // Not runnable: try the next one.
    }
  }
  return undefined;
}
