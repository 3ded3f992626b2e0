import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/domain/change-request.ts';
import type { ScheduledChange } from '../../src/domain/scheduled-change.ts';
import { processServerSecret } from '../../src/domain/server-secret.ts';
import { verifyBackup } from '../../src/storage/backup/read-backup.ts';
import { restoreBackup } from '../../src/storage/backup/restore-backup.ts';
import { schemaTables } from '../../src/storage/backup/schema-tables.ts';
import { writeBackup } from '../../src/storage/backup/write-backup.ts';
import { migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import type { Database } from '../../src/storage/sql/database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import type { Store } from '../../src/storage/store.ts';
import { describeEachFreshDatabase } from '../support/database.ts';
import { ANN, aChangeRequest, aScheduledChange, BOB, givenProjectM } from '../support/pending-changes.ts';

/** A request of every shape migration 0011 left: with changes, legacy, on a segment, on a deleted flag. */
const REQUESTS: readonly ChangeRequest[] = [
  aChangeRequest('chr_1', {
    environments: ['production', 'staging'],
    patch: { enabled: true, comment: 'ship it' },
    comment: 'ship it',
    baseVersion: 4,
    requiredApprovals: 2,
    approvals: [{ by: BOB, at: '2026-01-02T00:00:00.000Z', comment: 'fine' }],
    version: 2,
    updatedAt: '2026-01-02T00:00:00.000Z',
  }),
  aChangeRequest('chr_2', {
    patch: { enabled: false },
    changes: [],
    legacy: true,
    author: BOB,
    status: 'applied',
    approvals: [{ by: ANN, at: '2026-01-03T00:00:00.000Z', comment: '' }],
    decidedBy: ANN,
    version: 3,
    updatedAt: '2026-01-03T00:00:00.000Z',
  }),
  aChangeRequest('chr_3', {
    flagId: null,
    segmentId: 'seg_s',
    environment: 'staging',
    environments: ['staging'],
    kind: 'segment.delete',
    patch: {},
    changes: [{ path: '', before: { key: 's' }, after: null }],
    baseVersion: 7,
    status: 'conflicted',
    conflict: 'The field /rules of the segment changed, by Bob, since this request was made.',
    failure: 'The segment "s" is used by flag "x"; remove those uses first.',
    version: 5,
    createdAt: '2026-01-04T00:00:00.000Z',
    updatedAt: '2026-01-05T00:00:00.000Z',
  }),
  aChangeRequest('chr_4', {
    flagId: 'flg_deleted',
    kind: 'flag.delete',
    patch: {},
    changes: [{ path: '', before: { key: 'deleted' }, after: null }],
    comment: 'gone',
    baseVersion: 2,
    requiredApprovals: 3,
    author: BOB,
    status: 'withdrawn',
    decidedBy: BOB,
    version: 2,
    createdAt: '2026-01-06T00:00:00.000Z',
    updatedAt: '2026-01-07T00:00:00.000Z',
  }),
];

/** Scheduled changes pending, failed and cancelled, as migration 0007 stored them. */
const SCHEDULES: readonly ScheduledChange[] = [
  aScheduledChange('sch_1', '2026-03-01T09:00:00.000Z', {
    patch: { enabled: true, rules: [] },
    comment: 'launch',
  }),
  aScheduledChange('sch_2', '2026-02-01T09:00:00.000Z', {
    environment: 'staging',
    patch: { defaultVariant: 'nope' },
    status: 'failed',
    author: { ...BOB, role: 'admin', projectId: null, environments: ['staging'] },
    settledAt: '2026-02-01T09:00:00.120Z',
    failure: 'The flag is not valid. /environments/staging/defaultVariant: names no variant',
  }),
  aScheduledChange('sch_3', '2026-02-15T09:00:00.000Z', {
    patch: { enabled: false },
    comment: 'never mind',
    status: 'cancelled',
    createdAt: '2026-01-02T00:00:00.000Z',
    settledAt: '2026-01-03T00:00:00.000Z',
  }),
];

/** A request as a row of change_requests after migration 0011. */
const requestRow = (r: ChangeRequest) => ({
  id: r.id,
  project_id: r.projectId,
  kind: r.kind,
  flag_id: r.flagId,
  segment_id: r.segmentId,
  environment: r.environment,
  environments: JSON.stringify(r.environments),
  patch: JSON.stringify(r.patch),
  changes: r.legacy === true ? null : JSON.stringify(r.changes),
  comment: r.comment,
  base_version: r.baseVersion,
  required_approvals: r.requiredApprovals,
  author: JSON.stringify(r.author),
  status: r.status,
  conflict: r.conflict,
  approvals: JSON.stringify(r.approvals),
  decided_by: r.decidedBy === null ? null : JSON.stringify(r.decidedBy),
  failure: r.failure,
  version: r.version,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/** A scheduled change as a row of scheduled_changes (migration 0007). */
const scheduleRow = (s: ScheduledChange) => ({
  id: s.id,
  project_id: s.projectId,
  flag_id: s.flagId,
  environment: s.environment,
  patch: JSON.stringify(s.patch),
  comment: s.comment,
  at: s.at,
  status: s.status,
  author: JSON.stringify(s.author),
  created_at: s.createdAt,
  applied_at: s.settledAt,
  failure: s.failure,
});

/** Project m, and every request and scheduled change above, in the tables as migration 0012 leaves them. */
async function givenRowsOf0012(store: Store, db: Kysely<Database>): Promise<void> {
  await givenProjectM(store);
  // Database no longer names these tables.
  const before = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  await before.insertInto('change_requests').values(REQUESTS.map(requestRow)).execute();
  await before.insertInto('scheduled_changes').values(SCHEDULES.map(scheduleRow)).execute();
}

describeEachFreshDatabase(
  'migration 0013: change requests and scheduled changes in one table',
  (opened) => {
    it('moves every row of both tables, each field read back as it was', async () => {
      const { store, db } = opened();
      await givenRowsOf0012(store, db);

      await migrateToLatest(db);

      const { pendingChanges } = store;
      for (const request of REQUESTS)
        expect(await pendingChanges.find('request', request.id)).toEqual(request);
      for (const change of SCHEDULES)
        expect(await pendingChanges.find('schedule', change.id)).toEqual(change);
      // A kind finds only its own.
      expect(await pendingChanges.find('schedule', 'chr_1')).toBeUndefined();
      expect(await pendingChanges.find('request', 'sch_1')).toBeUndefined();
      const listed = await pendingChanges.listRequests('prj_m', {}, { limit: 10 });
      expect(listed.items).toEqual([...REQUESTS].reverse());
      expect(await pendingChanges.listSchedules('flg_x')).toEqual([SCHEDULES[1], SCHEDULES[2], SCHEDULES[0]]);
      expect(await pendingChanges.due('2026-12-31T00:00:00.000Z', 10)).toEqual([SCHEDULES[0]]);
      const tables = (await schemaTables(db)).map((table) => table.name);
      expect(tables).toContain('pending_changes');
      expect(tables).not.toContain('change_requests');
      expect(tables).not.toContain('scheduled_changes');
    });

    it("keeps to the old tables' rules: schedules go with their flag, requests outlive it", async () => {
      const { store, db } = opened();
      await givenRowsOf0012(store, db);

      await migrateToLatest(db);

      expect(await store.deleteFlag('flg_x')).toBe(true);
      expect(await store.pendingChanges.listSchedules('flg_x')).toEqual([]);
      expect(await store.pendingChanges.find('request', 'chr_1')).toEqual(REQUESTS[0]);
      expect(await store.deleteProject('prj_m')).toBe(true);
      expect(await store.pendingChanges.find('request', 'chr_1')).toBeUndefined();
    });

    it('restores a backup taken before it with every pending change', async () => {
      const { store, db } = opened();
      await givenRowsOf0012(store, db);
      const dir = mkdtempSync(join(tmpdir(), 'flagstaff-0013-'));
      const target = openDatabase('sqlite::memory:').db;
      try {
        const file = join(dir, 'before-0013.backup');
        await writeBackup(db, file, processServerSecret());

        // Into an empty database: migrated to the backup's schema, loaded, then migrated on.
        await restoreBackup(target, file, await verifyBackup(file, { secret: processServerSecret() }));

        const { pendingChanges } = createSqlStore(target);
        for (const request of REQUESTS)
          expect(await pendingChanges.find('request', request.id)).toEqual(request);
        for (const change of SCHEDULES)
          expect(await pendingChanges.find('schedule', change.id)).toEqual(change);
      } finally {
        await target.destroy();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
  { upTo: '0012-single-sign-on' },
);
