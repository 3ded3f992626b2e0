import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN } from '../cli/support.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { tempFolder } from './support.ts';

// The commands as CI runs them: `flagstaff plan DIR` in a process of its own, read by exit code.

let server: TestServer;
let dir: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/v1/projects', { body: { key: 'shop' } });
  await server.call('POST', '/v1/projects/shop/flags', { body: { key: 'checkout' } });
  ({ dir, remove } = await tempFolder());
});
afterAll(async () => {
  await server.close();
  await remove();
});

function flagstaff(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, FLAGSTAFF_URL: server.url, FLAGSTAFF_KEY: ADMIN_KEY, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

it('exits 0 when nothing would change, 2 when something would, 1 on error; --json is for machines', async () => {
  expect((await flagstaff(['pull', dir, '--project', 'shop'])).code).toBe(0);
  expect((await flagstaff(['plan', dir])).code).toBe(0);

  const file = join(dir, 'flags/checkout.yaml');
  await writeFile(file, (await readFile(file, 'utf8')).replace('enabled: false\n', 'enabled: true\n'));
  const plan = await flagstaff(['plan', dir, '--json']);
  expect(plan.code).toBe(2);
  const json = JSON.parse(plan.stdout);
  expect(json.changes).toBe(true);
  expect(json.projects[0].resources[0]).toMatchObject({
    kind: 'flag',
    key: 'checkout',
    action: 'update',
    changes: [{ field: 'environments.development.enabled', before: false, after: true }],
  });

  const refused = await flagstaff(['plan', dir], {
    FLAGSTAFF_KEY: 'fsk_not-a-key-0123456789abcdefghijklmnopqrstuv',
  });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^flagstaff plan: /);
  const nowhere = await flagstaff(['plan', dir], { FLAGSTAFF_URL: '' });
  expect(nowhere.code).toBe(1);
  expect(nowhere.stderr).toContain('--server URL --key KEY');
}, 120_000);
