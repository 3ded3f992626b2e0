import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/open-database.ts';
import { KEY_FILE_NAME } from '../../src/storage/server-key-file.ts';
import { startNodeProcess } from '../plane/node-process.ts';
import { syncSelectorOf } from '../support/flagd-sync-client.ts';
import { Receiver } from '../support/webhook-receiver.ts';

// The server key (docs/decisions/1880): made beside the data on first start, kept across restarts;
// an installation from before it keeps its API keys, and its webhook secrets are sealed at the
// first start and still sign (issue 34, item 7: "migrating existing installations must keep
// their keys working").

const ADMIN_KEY = 'fsk_server-key-test-admin-key-0123456789abcdef';
const LEGACY_SECRET = 'whsec_stored-in-plaintext-before-sealing-0123';

let dir: string;
let url: string;
const receiver = new Receiver();
/** Without FLAGSTAFF_SECRET_KEY, whatever the environment of the test run holds. */
const env = () => ({
  FLAGSTAFF_DATABASE_URL: url,
  FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
  FLAGSTAFF_SECRET_KEY: '',
  FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: 'true',
  FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
});

async function call(base: string, method: string, path: string, body?: unknown, key = ADMIN_KEY) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** Runs `work` against a node started on the test's database, then stops it. */
async function withNode<T>(work: (base: string) => Promise<T>): Promise<{ result: T; output: string }> {
  const node = startNodeProcess(env());
  try {
    const result = await work(await node.listening);
    return { result, output: node.output() };
  } finally {
    await node.stop();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagstaff-server-key-'));
  url = `sqlite:${join(dir, 'flagstaff.db')}`;
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('creates its key file beside the data on first start, readable by its owner only, and keeps it', {
  timeout: 60_000,
}, async () => {
  const file = join(dir, KEY_FILE_NAME);
  const first = await withNode(async (base) => {
    const key = await call(base, 'POST', '/v1/projects/default/api-keys', {
      name: 'sync',
      role: 'evaluator',
    });
    return {
      id: key.body.id as string,
      selector: await syncSelectorOf((m, p) => call(base, m, p), key.body.id, 'production'),
    };
  });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // The key is not in the database: nothing in the data file spells it.
  expect(readFileSync(join(dir, 'flagstaff.db')).includes(readFileSync(file, 'utf8').trim())).toBe(false);
  // A restart derives the same credentials: the flagd providers already configured keep working.
  const again = await withNode((base) =>
    syncSelectorOf((m, p) => call(base, m, p), first.result.id, 'production'),
  );
  expect(again.result).toBe(first.result.selector);
});

it('upgrades an installation from before the server key: its API keys work, its webhook secrets are sealed and still sign', {
  timeout: 60_000,
}, async () => {
  const setUp = await withNode(async (base) => {
    const evaluator = await call(base, 'POST', '/v1/projects/default/api-keys', {
      name: 'app',
      role: 'evaluator',
    });
    const hook = await call(base, 'POST', '/v1/projects/default/webhooks', {
      url: receiver.url,
      events: ['flag.*'],
      active: false,
    });
    return { evaluator: evaluator.body.secret as string, hook: hook.body.id as string };
  });
  // As the installation stood before the server key: the secret in plaintext, no key file.
  const { db } = openDatabase(url);
  await sql`update webhooks set secret = ${LEGACY_SECRET}`.execute(db);
  rmSync(join(dir, KEY_FILE_NAME));

  const upgraded = await withNode(async (base) => {
    receiver.secret = LEGACY_SECRET;
    const test = await call(base, 'POST', `/v1/projects/default/webhooks/${setUp.result.hook}/test`);
    const evaluated = await call(
      base,
      'GET',
      '/v1/flags/nothing-here?environment=production',
      undefined,
      setUp.result.evaluator,
    );
    const admin = await call(base, 'GET', '/v1/projects');
    return { test: test.body, evaluated: evaluated.status, admin: admin.status };
  });
  expect(upgraded.output).toMatch(/webhook secrets sealed with the server key/);
  expect(existsSync(join(dir, KEY_FILE_NAME))).toBe(true);
  // Both keys made before the upgrade still authenticate (404: the key was accepted, the flag is unknown).
  expect(upgraded.result.evaluated).toBe(404);
  expect(upgraded.result.admin).toBe(200);
  const { rows } = await sql<{ secret: string }>`select secret from webhooks`.execute(db);
  await db.destroy();
  expect(rows[0]?.secret).toMatch(/^aes256gcm\./);
  expect(rows[0]?.secret).not.toContain(LEGACY_SECRET);
  // The receiver checks the signature with the secret it was given before the upgrade.
  expect(upgraded.result.test).toMatchObject({ delivered: true, statusCode: 200 });
  expect(receiver.received.at(-1)?.signatureValid).toBe(true);
});
