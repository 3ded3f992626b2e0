import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { olderSystemNode, serve, stop } from './support.ts';

// Every way of starting the server caps V8's young generation (docs/performance.md: it was most of the
// RSS), so `npx flagstaff serve` uses as little memory as `npm start`. Read from the serving
// process's command line, which Linux shows in /proc.
const onLinux = existsSync('/proc/self/cmdline');
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const CAP = '--max-semi-space-size=16';

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
