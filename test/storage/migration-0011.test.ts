import { type Kysely, sql } from 'kysely';
import { expect, it } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { changeRequestsForEveryWrite } from '../../src/storage/migrations/0011-change-requests-for-every-write.ts';
import { describeEachFreshDatabase } from '../support/database.ts';
import { ADMIN_KEY } from '../support/server.ts';

const AT = '2026-01-01T00:00:00.000Z';

/** The change_requests table as migration 0007 made it. */
async function tableOf0007(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('change_requests').execute();
  await db.schema
    .createTable('change_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('flag_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('patch', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('base_version', 'integer', (c) => c.notNull())
    .addColumn('required_approvals', 'integer', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('approvals', 'text', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('failure', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

describeEachFreshDatabase('migration 0011: change requests made before the gate', (opened) => {
  it('keeps every existing request, as a flag patch applied onto the version it was made against', async () => {
    const { store, db } = opened();
    await bootstrap(store, ADMIN_KEY);
    const project = (await store.findProject('default'))?.id as string;
    await tableOf0007(db as unknown as Kysely<unknown>);
    const author = JSON.stringify({ type: 'api_key', id: 'key_a', name: 'ann' });
    await sql`INSERT INTO change_requests VALUES ('chr_old', ${project}, 'flg_x', 'production',
      '{"enabled":true}', 'please', 3, 2, ${author}, 'open', '[]', NULL, NULL, 1, ${AT}, ${AT})`.execute(db);

    await changeRequestsForEveryWrite.up(db as unknown as Kysely<unknown>);

    const request = await store.approvals.findChangeRequest('chr_old');
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
    await store.approvals.updateChangeRequest({ ...request, version: 2 }, 1);
    expect((await store.approvals.findChangeRequest('chr_old'))?.legacy).toBe(true);
    const listed = await store.approvals.listChangeRequests(project, { status: 'open' }, { limit: 10 });
    expect(listed.items.map((r) => r.id)).toEqual(['chr_old']);
  });
});
