import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stdout: () => string;
}

/** Runs `flagstaff serve` as an operator would, and waits until it listens. */
function serve(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, FLAGSTAFF_PORT: '0', FLAGSTAFF_LOG_LEVEL: 'info', ...env },
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${out}`)), 15_000);
    child.stdout.on('data', () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] as string, stdout: () => out });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

const stop = (started: Started) =>
  new Promise<void>((resolve) => {
    started.child.once('exit', () => resolve());
    started.child.kill('SIGTERM');
  });

describe('flagstaff serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-'));
  const env = { FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'data', 'flagstaff.db')}` };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a generated admin key once on first start, and that key lists the default flags', async () => {
    const first = await serve(env);
    const secret = /^\s+(fsk_\S+)$/m.exec(first.stdout())?.[1];
    expect(secret).toBeDefined();
    const res = await fetch(`${first.url}/v1/projects/default/flags`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    await stop(first);

    const second = await serve(env);
    expect(second.stdout()).not.toContain(secret);
    expect(second.stdout()).not.toMatch(/fsk_/);
    const again = await fetch(`${second.url}/v1/projects`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(again.status).toBe(200);
    await stop(second);
  });

  it('stops with one line naming a bad variable', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, FLAGSTAFF_PORT: 'eighty' },
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([expect.stringContaining('FLAGSTAFF_PORT')]);
  });
});
