import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, olderSystemNode, serve, stop } from './support.ts';

// README: "an old system Node is fine". The bin runs itself again under the bundled Node 24.
const oldNode = olderSystemNode();

describe.skipIf(oldNode === undefined)(
  `the bin under the machine's own Node (${oldNode ?? 'none older than 24 found'})`,
  { timeout: 60_000 },
  () => {
    const node = oldNode as string;
    const dir = mkdtempSync(join(tmpdir(), 'flagstaff-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('is really an older Node', () => {
      const major = Number(
        execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0],
      );
      expect(major).toBeLessThan(24);
    });

    it('prints the help and exits 0', () => {
      const run = spawnSync(node, [BIN, '--help'], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('Usage: flagstaff <command>');
      expect(run.status).toBe(0);
    });

    it('passes on the exit code of a failed command', () => {
      const run = spawnSync(node, [BIN, 'no-such-command'], { encoding: 'utf8' });
      expect(run.stderr).toContain('Unknown command "no-such-command"');
      expect(run.status).toBe(2);
    });

    it('serves the API, and stops on SIGTERM', async () => {
      const started = await serve({ FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'flagstaff.db')}` }, node);
      const res = await fetch(`${started.url}/healthz`);
      expect(res.status).toBe(200);
      expect(started.output()).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
      expect(await stop(started)).toBe(0);
    });
  },
);
