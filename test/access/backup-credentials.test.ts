import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ServerSecret } from '../../src/domain/server-secret.ts';
import { syncSourcesOf } from '../../src/main.ts';
import { type FlagdSyncServer, startFlagdSyncServer } from '../../src/openfeature/flagd-sync-server.ts';
import { deriveSyncCredential } from '../../src/plane/sync-credential.ts';
import { signStreamToken } from '../../src/realtime/stream-token.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { writeBackup } from '../../src/storage/backup/write-backup.ts';
import { openSse } from '../realtime/sse-client.ts';
import { buildTestApp } from '../support/app.ts';
import { describeEachDatabase, type OpenTestDatabase } from '../support/database.ts';
import { fetchAllClient, syncSelectorOf } from '../support/flagd-sync-client.ts';
import { ADMIN_KEY, UNLIMITED } from '../support/server.ts';

// Issue 34, item 7: a backup holds key hashes and webhooks, and nothing in it is enough to read
// production's flags or to learn a webhook's signing secret (docs/decisions/1880).

const SILENT = { info: () => {}, warn: () => {} };
const WEBHOOK_SECRET = 'whsec_kept-out-of-the-database-0123456789';

/** The rows of one table of a backup file, as objects of its columns. */
function backupRows(file: string, table: string): Record<string, unknown>[] {
  const [first = '', ...rest] = readFileSync(file, 'utf8').trimEnd().split('\n');
  const header = JSON.parse(first) as { tables: { name: string; columns: string[]; rows: number }[] };
  let offset = 0;
  for (const t of header.tables) {
    if (t.name === table) {
      return rest
        .slice(offset, offset + t.rows)
        .map((line) => Object.fromEntries(t.columns.map((c, i) => [c, JSON.parse(line)[i]])));
    }
    offset += t.rows;
  }
  throw new Error(`no table ${table} in the backup`);
}

describeEachDatabase('what a backup gives away', (database) => {
  let opened: OpenTestDatabase;
  let base: string;
  let close: () => Promise<void>;
  let sync: FlagdSyncServer;
  let dir: string;
  let file: string;
  let keyId: string;
  let keySecret: string;

  const call = async (method: string, path: string, body?: unknown, key: string = ADMIN_KEY) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  };

  beforeAll(async () => {
    opened = await database.open();
    await bootstrap(opened.store, ADMIN_KEY);
    const { app, node } = await buildTestApp(opened.store, {
      node: { serverSecret: ServerSecret.fromText(ServerSecret.generateText()), webhooksAllowPrivate: true },
      accessControl: UNLIMITED,
    });
    const { services } = node;
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    sync = await startFlagdSyncServer(syncSourcesOf(node), { port: 0, host: '127.0.0.1', log: SILENT });
    close = async () => {
      await sync.close();
      await app.close();
    };
    const created = await call('POST', '/v1/projects/default/api-keys', {
      name: 'backend',
      role: 'evaluator',
      environments: ['production'],
    });
    keyId = created.body.id;
    keySecret = created.body.secret;
    const hook = await call('POST', '/v1/projects/default/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['flag.*'],
      secret: WEBHOOK_SECRET,
      active: false,
    });
    expect(hook.status).toBe(201);
    dir = mkdtempSync(join(tmpdir(), 'flagstaff-backup-credentials-'));
    file = join(dir, 'stolen.backup');
    await writeBackup(opened.db, file, services.serverSecret);
  });
  afterAll(async () => {
    await close?.();
    await opened?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds no stream token: one signed with its key hash is refused', async () => {
    const bulk = await call(
      'POST',
      '/ofrep/v1/evaluate/flags',
      { context: { targetingKey: 'user-1' } },
      keySecret,
    );
    const issued = new URL(bulk.body.eventStreams[0].url);
    const [claims = ''] = (issued.searchParams.get('token') ?? '').split('.');
    const [, projectId, environment, expiresAt] = JSON.parse(Buffer.from(claims, 'base64url').toString());
    const row = backupRows(file, 'api_keys').find((r) => r.id === keyId);
    const forged = signStreamToken({ keyId, projectId, environment, expiresAt }, String(row?.secret_hash));
    const url = new URL(issued);
    url.searchParams.set('token', forged);
    const refused = await openSse(url.href);
    refused.close();
    expect(refused.status).toBe(401);
    // The token the server issued opens the stream (it sets an event id first thing).
    const genuine = await openSse(issued.href);
    try {
      expect(genuine.status).toBe(200);
      await genuine.waitForId();
    } finally {
      genuine.close();
    }
  });

  it('holds no flagd sync credential: one computed from its key hash is refused', async () => {
    const row = backupRows(file, 'api_keys').find((r) => r.id === keyId);
    const hash = String(row?.secret_hash);
    const fromBackup = deriveSyncCredential(keyId, hash, 'default/production');
    const client = fetchAllClient(sync.port);
    try {
      expect(await client.fetchAll(`default/production#${fromBackup}`)).toEqual({ code: 16 });
      // The selector the dashboard shows still reads production.
      const selector = await syncSelectorOf((m, p) => call(m, p), keyId, 'production');
      expect((await client.fetchAll(selector)).code).toBe(0);
    } finally {
      client.close();
    }
  });

  it('holds webhook secrets sealed: neither the database nor the backup has the plaintext', async () => {
    const { rows } = await sql<{ secret: string }>`select secret from webhooks`.execute(opened.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.secret).toMatch(/^aes256gcm\./);
    expect(rows[0]?.secret).not.toContain(WEBHOOK_SECRET);
    expect(readFileSync(file, 'utf8')).not.toContain(WEBHOOK_SECRET);
    expect(readFileSync(file, 'utf8')).not.toContain(WEBHOOK_SECRET.slice(6));
  });
});
