import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/open-database.ts';
import { describeEachFreshDatabase } from '../support/database.ts';
import { givenProjectM } from '../support/pending-changes.ts';

const AT = '2026-01-01T00:00:00.000Z';

describeEachFreshDatabase(
  'migration 0011: change requests made before the gate',
  (opened) => {
    it('keeps every existing request, as a flag patch applied onto the version it was made against', async () => {
      const { store, db } = opened();
      const author = JSON.stringify({ type: 'api_key', id: 'key_a', name: 'ann' });
      await givenProjectM(store);
      // A request as migration 0007 stored it.
      await sql`INSERT INTO change_requests (id, project_id, flag_id, environment, patch, comment,
        base_version, required_approvals, author, status, approvals, decided_by, failure, version,
        created_at, updated_at)
        VALUES ('chr_old', 'prj_m', 'flg_x', 'production', '{"enabled":true}', 'please', 3, 2,
        ${author}, 'open', '[]', NULL, NULL, 1, ${AT}, ${AT})`.execute(db);

      await migrateToLatest(db);

      const request = await store.pendingChanges.find('request', 'chr_old');
      expect(request).toMatchObject({
        kind: 'flag.patch',
        flagId: 'flg_x',
        segmentId: null,
        environment: 'production',
        environments: ['production'],
        patch: { enabled: true },
        changes: [],
        legacy: true,
        comment: 'please',
        baseVersion: 3,
        requiredApprovals: 2,
        author: { name: 'ann' },
        status: 'open',
        conflict: null,
        version: 1,
      });
      // Written back (an approval, say), it stays a legacy request.
      if (request === undefined) throw new Error('The request was lost.');
      await store.pendingChanges.updateRequest({ ...request, version: 2 }, 1);
      expect((await store.pendingChanges.find('request', 'chr_old'))?.legacy).toBe(true);
      const listed = await store.pendingChanges.listRequests('prj_m', { status: 'open' }, { limit: 10 });
      expect(listed.items.map((r) => r.id)).toEqual(['chr_old']);
    });
  },
  { upTo: '0010-insights-index-only-scan' },
);
