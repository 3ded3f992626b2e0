import { expect, it } from 'vitest';
import { copyActorIds } from '../../src/storage/migrations/0009-account-self-service.ts';
import { describeEachFreshDatabase } from '../support/database.ts';

describeEachFreshDatabase('migration 0009: audit events recorded before actor_id existed', (opened) => {
  it('can be filtered by who acted once the migration copied the id out of the actor', async () => {
    const { store, db } = opened();
    const event = (id: string, actorId: string) => ({
      id,
      project_id: null,
      at: '2026-01-01T00:00:00.000Z',
      actor: JSON.stringify({ type: 'user', id: actorId, name: 'Old' }),
      actor_id: null,
      action: 'flag.updated',
      resource_type: 'flag',
      resource_id: 'flg_x',
      resource_key: 'x',
      environment: null,
      before: null,
      after: null,
      request_id: 'req',
      details: null,
    });
    await db
      .insertInto('audit_events')
      .values([event('evt_1', 'acc_a'), event('evt_2', 'acc_b')])
      .execute();
    const byA = () => store.listAuditEvents(null, { actorId: 'acc_a' }, { limit: 10 });
    expect((await byA()).items).toEqual([]);

    await copyActorIds(db as never);

    expect((await byA()).items.map((e) => e.id)).toEqual(['evt_1']);
  });
});
