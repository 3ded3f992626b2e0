import { expect, it } from 'vitest';
import type { Store } from '../../src/storage/store.ts';
import { describeEachFreshDatabase } from '../support/database.ts';
import { ANN, aChangeRequest, aScheduledChange, givenProjectM } from '../support/pending-changes.ts';

// The pending-change role (storage/pending-change-store.ts) and the approval policies beside the
// environments: what change requests and scheduled changes rely on, on both databases.

const AT = '2026-01-01T00:00:00.000Z';

describeEachFreshDatabase('Pending changes and approval policies', (opened) => {
  it('keeps the approvals each environment requires, 0 removing the policy', async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.setRequiredApprovals('env_p', 2);
    await store.setRequiredApprovals('env_s', 1);
    await store.setRequiredApprovals('env_s', 0);
    expect(await store.requiredApprovals('prj_m')).toEqual(new Map([['production', 2]]));
  });

  it('writes a change request back only over the version it was read at', async () => {
    const { store } = opened();
    await givenProjectM(store);
    const request = aChangeRequest('chr_1');
    await store.pendingChanges.insert('request', request);
    const approved = { ...request, approvals: [{ by: ANN, at: AT, comment: 'ok' }], version: 2 };

    expect(await store.pendingChanges.updateRequest(approved, 1)).toBe(true);
    expect(await store.pendingChanges.updateRequest({ ...request, status: 'rejected', version: 2 }, 1)).toBe(
      false,
    );
    expect(await store.pendingChanges.find('request', 'chr_1')).toEqual(approved);
  });

  it("lists a project's requests newest first, by status and flag, a page at a time", async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.pendingChanges.insert('request', aChangeRequest('chr_1'));
    await store.pendingChanges.insert('request', aChangeRequest('chr_2', { status: 'applied' }));
    await store.pendingChanges.insert('request', aChangeRequest('chr_3', { flagId: 'flg_y' }));
    await store.pendingChanges.insert('schedule', aScheduledChange('sch_1', AT));
    const ids = async (filter: Parameters<Store['pendingChanges']['listRequests']>[1]) =>
      (await store.pendingChanges.listRequests('prj_m', filter, { limit: 10 })).items.map((r) => r.id);

    expect(await ids({})).toEqual(['chr_3', 'chr_2', 'chr_1']);
    expect(await ids({ status: 'open' })).toEqual(['chr_3', 'chr_1']);
    expect(await ids({ status: 'open', flagId: 'flg_x' })).toEqual(['chr_1']);
    const first = await store.pendingChanges.listRequests('prj_m', {}, { limit: 2 });
    const second = await store.pendingChanges.listRequests(
      'prj_m',
      {},
      { limit: 2, cursor: first.nextCursor as string },
    );
    expect([...first.items, ...second.items].map((r) => r.id)).toEqual(['chr_3', 'chr_2', 'chr_1']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('answers the due scheduled changes earliest first, pending ones only, at most as many as asked', async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.pendingChanges.insert('schedule', aScheduledChange('sch_late', '2026-01-03T00:00:00.000Z'));
    await store.pendingChanges.insert('schedule', aScheduledChange('sch_early', '2026-01-02T00:00:00.000Z'));
    await store.pendingChanges.insert('schedule', aScheduledChange('sch_future', '2026-06-01T00:00:00.000Z'));
    await store.pendingChanges.insert(
      'schedule',
      aScheduledChange('sch_done', '2026-01-01T00:00:00.000Z', { status: 'cancelled', settledAt: AT }),
    );
    const due = (limit: number) => store.pendingChanges.due('2026-02-01T00:00:00.000Z', limit);

    expect((await due(10)).map((c) => c.id)).toEqual(['sch_early', 'sch_late']);
    expect((await due(1)).map((c) => c.id)).toEqual(['sch_early']);
    expect((await store.pendingChanges.listSchedules('flg_x', 'pending')).map((c) => c.id)).toEqual([
      'sch_early',
      'sch_late',
      'sch_future',
    ]);
  });

  it('of 10 concurrent settles of one scheduled change, exactly one moves it, and it stays as that one left it', async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.pendingChanges.insert('schedule', aScheduledChange('sch_1', AT));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.transaction((tx) => tx.pendingChanges.settle('sch_1', 'failed', AT, `attempt ${i}`)),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const settled = await store.pendingChanges.find('schedule', 'sch_1');
    expect(settled).toMatchObject({ status: 'failed', settledAt: AT });
    expect(settled?.failure).toBe(`attempt ${results.indexOf(true)}`);
  });

  it("keeps a release plan's step with its plan and milestone, and postpones it only while it is pending", async () => {
    const { store } = opened();
    await givenProjectM(store);
    const step = aScheduledChange('sch_step', AT, { releaseStep: { plan: 'rpl_1', milestone: 2 } });
    await store.pendingChanges.insert('schedule', step);
    expect(await store.pendingChanges.find('schedule', 'sch_step')).toEqual(step);

    const later = '2026-01-01T00:05:00.000Z';
    expect(await store.pendingChanges.postpone('sch_step', later)).toBe(true);
    expect((await store.pendingChanges.due(AT, 10)).map((c) => c.id)).toEqual([]);
    expect((await store.pendingChanges.due(later, 10)).map((c) => c.id)).toEqual(['sch_step']);
    await store.pendingChanges.settle('sch_step', 'applied', later);
    expect(await store.pendingChanges.postpone('sch_step', '2026-02-01T00:00:00.000Z')).toBe(false);
    expect(await store.pendingChanges.find('schedule', 'sch_step')).toMatchObject({
      at: later,
      status: 'applied',
    });
  });
});
