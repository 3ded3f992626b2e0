import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');

/** `flagstaff serve` (or `flagstaff edge`) as a process of its own, with everything it prints. */
export interface NodeProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the URL once the node listens. */
  readonly listening: Promise<string>;
  stop(): Promise<void>;
}

export function startNodeProcess(
  env: Record<string, string>,
  command: 'serve' | 'edge' = 'serve',
): NodeProcess {
  const child = spawn(process.execPath, [BIN, command], {
    env: { ...process.env, FLAGSTAFF_PORT: '0', FLAGSTAFF_LOG_LEVEL: 'info', ...env },
  });
  let out = '';
  const listening = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk;
      const match = /listening: (?:API )?(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1] as string);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
  listening.catch(() => {});
  return {
    child,
    output: () => out,
    listening,
    stop: () =>
      new Promise<void>((resolve) => {
        // A node killed by a signal (kill -9) has no exit code, only its signal.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `flagstaff <argv…>` run to completion: its exit code and output. */
export async function runCliProcess(
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...argv], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
