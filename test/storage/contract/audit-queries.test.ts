import { expect, it } from 'vitest';
import type { AuditEvent } from '../../../src/domain/audit-event.ts';
import type { Store } from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import { anAuditEvent, EVERY_JSON_VALUE, everyPage, givenProject, openStoreEachTest } from './support.ts';

describeEachDatabase('Store contract: audit events', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  // Audit events

  it('stores an audit event exactly as given, read back with the project whose log holds it', async () => {
    const { project } = await givenProject(store, 'checkout');
    const withEverything = anAuditEvent({
      actor: { type: 'user', id: 'usr_1', name: 'Ada "the admin"' },
      action: 'flag.updated',
      resource: { type: 'flag', id: 'flg_9', key: 'new-button' },
      environment: 'production',
      before: { enabled: false, values: EVERY_JSON_VALUE },
      after: { enabled: true, values: EVERY_JSON_VALUE },
      requestId: 'req-42',
    });
    const minimal = anAuditEvent({
      action: 'api_key.revoked',
      resource: { type: 'api_key', id: 'key_1', key: null },
    });
    await store.insertAuditEvent(project.id, withEverything);
    await store.insertAuditEvent(project.id, minimal);

    const { items } = await store.listAuditEvents(project.id, {}, { limit: 10 });

    expect(items).toStrictEqual([minimal, withEverything].map((e) => ({ ...e, projectId: project.id })));
    await store.insertAuditEvent(null, { ...minimal, id: `${minimal.id}-org` });
    const organisation = await store.listAuditEvents(null, { action: 'api_key.revoked' }, { limit: 10 });
    expect(organisation.items.map((e) => e.projectId).sort()).toEqual([null, project.id].sort());
  });

  it("lists a project's audit events newest first, a page at a time, and none of elsewhere", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const events = Array.from({ length: 7 }, (_, i) => anAuditEvent({ requestId: `req-${i}` }));
    for (const event of events) await store.insertAuditEvent(project.id, event);
    await store.insertAuditEvent(other.project.id, anAuditEvent());
    await store.insertAuditEvent(null, anAuditEvent({ action: 'project.created' }));

    const pages = await everyPage((page) => store.listAuditEvents(project.id, {}, page), 3);

    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items)).toStrictEqual(
      [...events].reverse().map((e) => ({ ...e, projectId: project.id })),
    );
  });

  it('filters audit events by resource type, resource id, action and actor, together or alone', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag: AuditEvent['resource'] = { type: 'flag', id: 'flg_1', key: 'a' };
    const flagCreated = anAuditEvent({ action: 'flag.created', resource: flag });
    const flagUpdated = anAuditEvent({ action: 'flag.updated', resource: flag });
    const otherFlag = anAuditEvent({ action: 'flag.updated', resource: { ...flag, id: 'flg_2', key: 'b' } });
    const segment = anAuditEvent({
      action: 'segment.updated',
      resource: { type: 'segment', id: 'seg_1', key: 's' },
      actor: { type: 'user', id: 'acc_someone', name: 'Someone' },
    });
    for (const event of [flagCreated, flagUpdated, otherFlag, segment])
      await store.insertAuditEvent(project.id, event);

    const ids = async (filter: Parameters<Store['listAuditEvents']>[1]) =>
      (await store.listAuditEvents(project.id, filter, { limit: 10 })).items.map((e) => e.id);

    expect(await ids({ resourceType: 'flag' })).toEqual([otherFlag.id, flagUpdated.id, flagCreated.id]);
    expect(await ids({ resourceId: 'flg_1' })).toEqual([flagUpdated.id, flagCreated.id]);
    expect(await ids({ action: 'flag.updated' })).toEqual([otherFlag.id, flagUpdated.id]);
    expect(await ids({ resourceType: 'flag', resourceId: 'flg_1', action: 'flag.updated' })).toEqual([
      flagUpdated.id,
    ]);
    expect(await ids({ resourceType: 'segment', action: 'flag.updated' })).toEqual([]);
    expect(await ids({ actorId: 'acc_someone' })).toEqual([segment.id]);
    expect(await ids({ actorId: 'acc_someone', resourceType: 'flag' })).toEqual([]);
  });

  it('pages through filtered audit events', async () => {
    const { project } = await givenProject(store, 'checkout');
    const events = Array.from({ length: 6 }, (_, i) =>
      anAuditEvent({ action: i % 2 === 0 ? 'flag.updated' : 'segment.updated' }),
    );
    for (const event of events) await store.insertAuditEvent(project.id, event);

    const pages = await everyPage(
      (page) => store.listAuditEvents(project.id, { action: 'flag.updated' }, page),
      2,
    );

    expect(pages.map((p) => p.items.length)).toEqual([2, 1]);
    expect(pages.flatMap((p) => p.items)).toStrictEqual(
      [events[4], events[2], events[0]].map((e) => ({ ...e, projectId: project.id })),
    );
  });
});
