import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/open-database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import { type NodeProcess, startNodeProcess } from '../plane/node-process.ts';
import { createTestSchema, describeEachDatabase } from '../support/database.ts';

// SPEC §13: an acknowledged event is durable. A node process takes batches from several clients at
// once and is killed with SIGKILL the moment one more 2xx arrives; every event of every batch it
// acknowledged is in the database afterwards, on SQLite (a file) and PostgreSQL.

const ADMIN_KEY = 'fsk_events-durability-admin-key-0123456789ab';
const SENDERS = 4;
const BATCH = 250;
const KILL_AFTER = 4000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database URL for the node and the same database for the test to read afterwards. */
async function databaseFor(
  name: 'sqlite' | 'postgres',
): Promise<{ nodeUrl: string; open: () => ReturnType<typeof openDatabase> }> {
  if (name === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'flagstaff-durability-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const url = `sqlite:${join(folder, 'flagstaff.db')}`;
    return { nodeUrl: url, open: () => openDatabase(url) };
  }
  const url = process.env.FLAGSTAFF_TEST_DATABASE_URL as string;
  const schema = await createTestSchema(url);
  const nodeUrl = new URL(url);
  nodeUrl.searchParams.set('options', `-c search_path=${schema}`);
  return { nodeUrl: nodeUrl.toString(), open: () => openDatabase(url, { schema }) };
}

describeEachDatabase('tracking events across a kill -9', (database) => {
  it('loses no event of a batch the node acknowledged', async () => {
    const { nodeUrl, open } = await databaseFor(database.name);
    const node: NodeProcess = startNodeProcess({
      FLAGSTAFF_DATABASE_URL: nodeUrl,
      FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
    });
    cleanups.push(() => node.stop());
    const url = await node.listening;

    const acknowledged: string[] = [];
    let killed = false;
    const send = async (sender: number) => {
      for (let n = 0; !killed; n++) {
        const ids = Array.from({ length: BATCH }, (_, i) => `s${sender}-${n}-${i}`);
        const events = ids.map((id) => ({ id, name: 'purchase', value: 1, context: { targetingKey: id } }));
        let status: number;
        try {
          const res = await fetch(`${url}/v1/events`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${ADMIN_KEY}`,
              'content-type': 'application/json',
              'x-flagstaff-project': 'default',
            },
            body: JSON.stringify({ events }),
          });
          status = res.status;
          await res.text();
        } catch {
          return; // the node is gone
        }
        if (status !== 200) throw new Error(`batch answered ${status}`);
        acknowledged.push(...ids);
        if (acknowledged.length >= KILL_AFTER && !killed) {
          killed = true;
          node.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, (_, s) => send(s)));
    await new Promise((resolve) =>
      node.child.exitCode !== null || node.child.signalCode !== null
        ? resolve(null)
        : node.child.once('exit', resolve),
    );
    expect(node.child.signalCode).toBe('SIGKILL');

    const { db } = open();
    cleanups.push(() => db.destroy());
    const project = await db
      .selectFrom('projects')
      .select('id')
      .where('key', '=', 'default')
      .executeTakeFirstOrThrow();
    const stored = await createSqlStore(db).events.listEvents({
      projectId: project.id,
      environment: 'production',
      limit: 1_000_000,
    });
    const ids = new Set(stored.map((e) => e.id));
    const lost = acknowledged.filter((id) => !ids.has(id));
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(lost).toEqual([]);
  }, 120_000);
});
