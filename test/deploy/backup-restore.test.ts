import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, runCliProcess, startNodeProcess } from '../plane/node-process.ts';
import { rolloutWeights, variantList } from '../support/builders.ts';
import { createTestSchema, POSTGRES_SKIPPED } from '../support/database.ts';

const ADMIN_KEY = 'fsk_backup-test-admin-key-0123456789abcdef';
const ADMIN_EMAIL = 'ops@example.com';
const ADMIN_PASSWORD = 'correct horse battery';
const postgresUrl = process.env.FLAGSTAFF_TEST_DATABASE_URL || undefined;
/** One window for every insights read, so that both databases are asked the same question. */
const HOUR = 3_600_000;
const WINDOW = `from=${new Date(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR).toISOString()}&to=${new Date(Math.ceil(Date.now() / HOUR) * HOUR + HOUR).toISOString()}`;

/** The environment of every node and CLI run here; the database URL is added per run. */
const BASE_ENV = {
  FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
  FLAGSTAFF_ADMIN_EMAIL: ADMIN_EMAIL,
  FLAGSTAFF_ADMIN_PASSWORD: ADMIN_PASSWORD,
  FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
  FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
  FLAGSTAFF_LOG_LEVEL: 'warn',
};

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  key: string | null = ADMIN_KEY,
) {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Writes through the API, failing the test on any error status. */
async function write(base: string, method: string, path: string, body?: unknown, key?: string) {
  const res = await call(base, method, path, body, key);
  if (res.status >= 300 && res.status !== 202)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every resource kind the backup must carry, written through the API of a node. */
async function seedEveryKind(base: string): Promise<{ evaluatorKey: string; editorKey: string }> {
  await write(base, 'POST', '/v1/projects', {
    key: 'shop',
    name: 'Web shop',
    environments: [
      { key: 'development', name: 'Development' },
      { key: 'production', name: 'Production' },
    ],
  });
  await write(base, 'POST', '/v1/projects/shop/segments', {
    key: 'dutch-users',
    name: 'Dutch users',
    rules: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
    included: ['acme'],
  });
  const checkout = await write(base, 'POST', '/v1/projects/shop/flags', {
    key: 'new-checkout',
    name: 'New checkout',
    tags: ['web'],
  });
  await write(base, 'PATCH', `/v1/flags/${checkout.id}?environment=production`, {
    enabled: true,
    defaultVariant: 'off',
    rules: [{ segments: ['dutch-users'], serve: { variant: 'on' } }],
  });
  const colour = await write(base, 'POST', '/v1/projects/shop/flags', {
    key: 'button-colour',
    type: 'string',
    variants: variantList({ blue: '#00f', green: '#0f0' }),
  });
  await write(base, 'PATCH', `/v1/flags/${colour.id}?environment=production`, {
    enabled: true,
    defaultRollout: { weights: rolloutWeights({ blue: 50, green: 50 }) },
  });
  const gone = await write(base, 'POST', '/v1/projects/shop/flags', { key: 'retired' });
  await write(base, 'DELETE', `/v1/flags/${gone.id}`);
  const evaluatorKey = (
    await write(base, 'POST', '/v1/projects/shop/api-keys', { name: 'backend', role: 'evaluator' })
  ).secret as string;
  const editorKey = (await write(base, 'POST', '/v1/projects/shop/api-keys', { name: 'ci', role: 'editor' }))
    .secret as string;
  const revoked = await write(base, 'POST', '/v1/projects/shop/api-keys', { name: 'old', role: 'viewer' });
  await write(base, 'DELETE', `/v1/api-keys/${revoked.id}`);
  // A guarded environment: the editor's write becomes a change request.
  await write(base, 'PATCH', '/v1/projects/shop/environments/production', { requiredApprovals: 1 });
  await write(base, 'PATCH', `/v1/flags/${colour.id}?environment=production`, { enabled: false }, editorKey);
  await write(base, 'POST', `/v1/flags/${checkout.id}/scheduled-changes`, {
    at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    environment: 'development',
    patch: { enabled: true },
    comment: 'launch',
  });
  await write(base, 'POST', '/v1/invitations', { email: 'grace@example.com', role: 'editor', project: null });
  for (let i = 0; i < 5; i++) {
    await write(
      base,
      'GET',
      `/v1/flags/new-checkout?environment=production&attributes={"country":"NL"}`,
      undefined,
      evaluatorKey,
    );
  }
  await write(base, 'POST', '/v1/projects/shop/metrics', {
    key: 'purchases',
    event: 'purchase',
    kind: 'sum',
  });
  const day = 86_400_000;
  // Events of several days: on PostgreSQL each day is a partition the restore must make (decision 1920).
  await write(
    base,
    'POST',
    '/v1/events',
    {
      events: [0, 1, 3].map((daysAgo) => ({
        id: `purchase-${daysAgo}`,
        name: 'purchase',
        value: 10 + daysAgo,
        context: { targetingKey: 'acme' },
        timestamp: new Date(Date.now() - daysAgo * day).toISOString(),
      })),
    },
    evaluatorKey,
  );
  // Last, so that no change after it gives it deliveries in flight while the copies are compared.
  await write(base, 'POST', '/v1/projects/shop/webhooks', {
    url: 'https://203.0.113.10/hooks/flagstaff',
    events: ['flag.*'],
  });
  return { evaluatorKey, editorKey };
}

/** What the API shows of everything; last use of keys moves with every read, so it is left out. */
async function everyRead(base: string): Promise<Record<string, unknown>> {
  const reads: Record<string, unknown> = {};
  const read = async (path: string) => {
    const res = await call(base, 'GET', path);
    reads[path] = JSON.parse(JSON.stringify(res.body), (key, value) =>
      key === 'lastUsedAt' ? undefined : value,
    );
    return res.body;
  };
  await read('/v1/projects');
  for (const project of ['default', 'shop']) {
    await read(`/v1/projects/${project}`);
    await read(`/v1/projects/${project}/environments`);
    await read(`/v1/projects/${project}/segments`);
    await read(`/v1/projects/${project}/api-keys`);
    await read(`/v1/projects/${project}/webhooks`);
    await read(`/v1/projects/${project}/change-requests`);
    await read(`/v1/projects/${project}/audit-log`);
    await read(`/v1/projects/${project}/insights/top-flags?${WINDOW}`);
    await read(`/v1/projects/${project}/metrics`);
    const flags = await read(`/v1/projects/${project}/flags`);
    for (const flag of (flags.items ?? flags) as { id: string; key: string }[]) {
      await read(`/v1/projects/${project}/flags/${flag.key}`);
      await read(`/v1/flags/${flag.id}/scheduled-changes`);
    }
  }
  await read('/v1/api-keys');
  await read('/v1/accounts');
  await read('/v1/invitations');
  await read('/v1/audit-log');
  return reads;
}

describe('flagstaff backup and restore', () => {
  let dir: string;
  let sqliteUrl: string;
  let backupFile: string;
  let keys: { evaluatorKey: string; editorKey: string };
  let before: Record<string, unknown>;
  /** The node on PostgreSQL, restored from the backup (when PostgreSQL is configured). */
  let restored: NodeProcess | undefined;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flagstaff-backup-'));
    sqliteUrl = `sqlite:${join(dir, 'flagstaff.db')}`;
    backupFile = join(dir, 'flagstaff.backup');
    const node = startNodeProcess({ ...BASE_ENV, FLAGSTAFF_DATABASE_URL: sqliteUrl });
    try {
      const base = await node.listening;
      keys = await seedEveryKind(base);
    } finally {
      await node.stop(); // flushes the evaluation counts
    }
    const backup = await runCliProcess(['backup', '--to', backupFile], {
      ...BASE_ENV,
      FLAGSTAFF_DATABASE_URL: sqliteUrl,
    });
    expect(backup.code, backup.stdout).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up \d+ rows in \d+ tables/);
    const reader = startNodeProcess({ ...BASE_ENV, FLAGSTAFF_DATABASE_URL: sqliteUrl });
    try {
      before = await everyRead(await reader.listening);
    } finally {
      await reader.stop();
    }
    if (postgresUrl !== undefined) {
      const url = new URL(postgresUrl);
      url.searchParams.set('options', `-c search_path=${await createTestSchema(postgresUrl)}`);
      const env = { ...BASE_ENV, FLAGSTAFF_DATABASE_URL: url.href };
      const restore = await runCliProcess(['restore', '--from', backupFile], env);
      expect(restore.code, restore.stderr).toBe(0);
      expect(restore.stdout).toMatch(/^Restored \d+ rows in \d+ tables/);
      restored = startNodeProcess(env);
      base = await restored.listening;
    }
  }, 180_000);
  afterAll(async () => {
    await restored?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every table of the schema, each of the seeded kinds with rows', () => {
    const header = JSON.parse(readFileSync(backupFile, 'utf8').split('\n')[0] as string);
    const rows = Object.fromEntries(
      header.tables.map((t: { name: string; rows: number }) => [t.name, t.rows]),
    );
    for (const table of [
      'projects',
      'environments',
      'flags',
      'flag_environments',
      'segments',
      'api_keys',
      'accounts',
      'invitations',
      'pending_changes',
      'webhooks',
      'audit_events',
      'flag_evaluation_counts',
      'metrics',
      'events',
    ]) {
      expect(rows[table], table).toBeGreaterThan(0);
    }
  });

  it('refuses a truncated file and an altered one before writing anything', {
    timeout: 120_000,
  }, async () => {
    const text = readFileSync(backupFile, 'utf8');
    const truncated = join(dir, 'truncated.backup');
    writeFileSync(truncated, text.slice(0, Math.floor(text.length * 0.7)));
    const altered = join(dir, 'altered.backup');
    writeFileSync(altered, text.replace('New checkout', 'New chexkout'));
    const target = `sqlite:${join(dir, 'refused.db')}`;
    for (const [file, message] of [
      [truncated, /incomplete \(truncated\?\)|damaged/],
      [altered, /altered or damaged: its checksum does not match/],
    ] as const) {
      const run = await runCliProcess(['restore', '--from', file], {
        ...BASE_ENV,
        FLAGSTAFF_DATABASE_URL: target,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
    }
    // Nothing was written: the file was never even created.
    expect(() => readFileSync(join(dir, 'refused.db'))).toThrow();
  });

  it('refuses to restore into a database that holds data', { timeout: 120_000 }, async () => {
    const run = await runCliProcess(['restore', '--from', backupFile], {
      ...BASE_ENV,
      FLAGSTAFF_DATABASE_URL: sqliteUrl,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the target database is not empty: projects \(2\)/);
  });

  describe.skipIf(postgresUrl === undefined)('into PostgreSQL', () => {
    it('serves every API read as the SQLite database did', async () => {
      expect(await everyRead(base)).toEqual(before);
    });

    it('takes the old API keys and the old password', async () => {
      const evaluated = await call(
        base,
        'GET',
        '/v1/flags/new-checkout?environment=production&attributes={"country":"NL"}',
        undefined,
        keys.evaluatorKey,
      );
      expect(evaluated.status).toBe(200);
      expect(evaluated.body).toMatchObject({ value: true, variant: 'on' });
      expect((await call(base, 'GET', '/v1/projects/shop/flags', undefined, keys.editorKey)).status).toBe(
        200,
      );
      const signIn = await call(
        base,
        'POST',
        '/v1/auth/sign-in',
        { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        null,
      );
      expect(signIn.status).toBe(200);
    });
  });
  describe.skipIf(postgresUrl !== undefined)(POSTGRES_SKIPPED, () => {
    it('restores the SQLite backup into PostgreSQL', () => {});
  });
});
