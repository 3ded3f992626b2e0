import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPILE_CACHE, V8_FLAGS } from '../../bin/runtime-settings.js';
import { olderSystemNode, serve, stop } from './support.ts';

// Every way of starting the server caps V8's young generation (docs/performance.md: it was most of the
// RSS), so `npx flagstaff serve` uses as little memory as `npm start`. Read from the serving
// process's command line, which Linux shows in /proc.
const onLinux = existsSync('/proc/self/cmdline');
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const environment = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const CAP = V8_FLAGS[0] as string;
/** The files of Node's compile cache below `dir` (one folder per Node version). */
const cachedFiles = (dir: string) =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];

describe.skipIf(!onLinux)('the V8 flags of a started server', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const database = (name: string) => ({ FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}` });

  it('caps the young generation when started as `node bin/flagstaff.js serve`, in the same process', async () => {
    const started = await serve(database('plain'));
    try {
      expect(commandLine(started.child.pid as number)).toContain(CAP);
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await stop(started)).toBe(0);
    }
  });

  it('runs with two malloc arenas unless the operator chose a number', async () => {
    const started = await serve(database('arenas'));
    const chosen = await serve({ ...database('arenas-chosen'), MALLOC_ARENA_MAX: '4' });
    try {
      expect(environment(started.child.pid as number)).toContain('MALLOC_ARENA_MAX=2');
      expect(environment(chosen.child.pid as number)).toContain('MALLOC_ARENA_MAX=4');
      // Started without NODE_COMPILE_CACHE: Node's compile cache beside the installed packages.
      expect(cachedFiles(COMPILE_CACHE).length).toBeGreaterThan(300);
    } finally {
      await Promise.all([stop(started), stop(chosen)]);
    }
  });

  it('has what Node compiled to start on disk once it listens, for the next start to load', async () => {
    // Beside the installed packages by default; where NODE_COMPILE_CACHE names a folder, there.
    const chosen = join(dir, 'compile-cache');
    const started = await serve({ ...database('cache'), NODE_COMPILE_CACHE: chosen });
    try {
      // Written while it runs (a killed node never writes it at exit): every module it loaded.
      expect(cachedFiles(chosen).length).toBeGreaterThan(300);
    } finally {
      await stop(started);
    }
  });

  it("leaves an operator's own setting alone", async () => {
    const started = await serve({ ...database('operator'), NODE_OPTIONS: '--max-semi-space-size=32' });
    try {
      expect(commandLine(started.child.pid as number).some((arg) => arg.startsWith('--max-semi'))).toBe(
        false,
      );
    } finally {
      await stop(started);
    }
  });

  const oldNode = olderSystemNode();
  const childrenFile = (pid: number) => `/proc/${pid}/task/${pid}/children`;
  it.skipIf(oldNode === undefined)(
    'passes them to the bundled Node when an older Node starts it',
    async () => {
      const started = await serve(database('old'), oldNode);
      try {
        const pid = started.child.pid as number;
        if (!existsSync(childrenFile(pid))) return;
        const [child] = readFileSync(childrenFile(pid), 'utf8').trim().split(/\s+/).map(Number);
        expect(commandLine(child as number)).toContain(CAP);
      } finally {
        await stop(started);
      }
    },
  );
});
