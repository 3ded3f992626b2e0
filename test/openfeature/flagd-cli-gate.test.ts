import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeNode } from '../../src/main.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { openStore } from '../../src/storage/open-store.ts';
import { setupActor } from '../access/support.ts';

const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');
const DOCUMENT = join(import.meta.dirname, '../fixtures/flagd/show-banner-and-tagline.json');

/**
 * `flagstaff import` into a guarded environment (issue 34, 6; decision 1853): the operator at the
 * command line passes the gate like anyone, unless they say `--bypass-approvals`, which the audit
 * log then records on every event of the import.
 */
describe('flagstaff import honours the gate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-import-gate-'));
  const url = `sqlite:${join(dir, 'flagstaff.db')}`;
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, [BIN, ...args], {
      env: { ...process.env, FLAGSTAFF_DATABASE_URL: url, FLAGSTAFF_LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const withStore = async <T>(work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>) => {
    const store = await openStore(url);
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };
  const importIntoProduction = (...more: string[]) =>
    run('import', '--project', 'default', '--environment', 'production', ...more, DOCUMENT);

  beforeAll(() =>
    withStore(async (store) => {
      await bootstrap(store, 'fsk_cli-gate-admin-key-0123456789abcdefghijk');
      const { services } = composeNode(store);
      await services.environments.patch(setupActor, 'default', 'production', { requiredApprovals: 1 }, {});
    }),
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a change request instead of writing into a production that requires approvals', async () => {
    const result = importIntoProduction();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Change request chr_\S+ made: the import waits for approvals in production/,
    );
    await withStore(async (store) => {
      const project = await store.findProject('default');
      expect(await store.findFlagByKey(project?.id as string, 'show-banner')).toBeUndefined();
      const open = await store.pendingChanges.listRequests(
        project?.id as string,
        { status: 'open' },
        { limit: 10 },
      );
      expect(open.items).toMatchObject([
        { kind: 'flagd.import', environment: 'production', author: { id: 'cli', name: /\(command line\)$/ } },
      ]);
    });
  });

  it('writes at once with --bypass-approvals, and every audit event of the import says so', async () => {
    const result = importIntoProduction('--bypass-approvals');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/created:\s+show-banner, tagline/);
    await withStore(async (store) => {
      const project = await store.findProject('default');
      const events = await store.listAuditEvents(
        project?.id as string,
        { action: 'flag.created' },
        { limit: 10 },
      );
      expect(events.items).toHaveLength(2);
      for (const event of events.items) {
        expect(event).toMatchObject({
          environment: 'production',
          actor: { id: 'cli' },
          details: { approvalsBypassed: '--bypass-approvals' },
        });
      }
    });
  });
});
