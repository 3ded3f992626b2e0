import { expect, it } from 'vitest';
import { NOT_STARTED, type ReleasePlan, type ReleaseTemplate } from '../../src/domain/release-plan.ts';
import { UniqueViolation } from '../../src/storage/store.ts';
import { describeEachFreshDatabase } from '../support/database.ts';
import { ANN, givenProjectM } from '../support/pending-changes.ts';

// The release role (storage/release-store.ts): templates and plans as versioned documents, one plan
// per flag and environment, on both databases.

const AT = '2026-01-01T00:00:00.000Z';

const aTemplate = (id: string, key: string): ReleaseTemplate => ({
  id,
  projectId: 'prj_m',
  key,
  name: key,
  description: '',
  milestones: [{ name: 'all', rollout: 100, holdSeconds: null }],
  guards: [],
  onBreach: 'rollback',
  guardIntervalSeconds: 60,
  version: 1,
  createdAt: AT,
  updatedAt: AT,
});

const aPlan = (id: string, fields: Partial<ReleasePlan> = {}): ReleasePlan => ({
  id,
  projectId: 'prj_m',
  flagId: 'flg_x',
  flagKey: 'x',
  environment: 'production',
  control: 'off',
  treatment: 'on',
  template: null,
  milestones: [{ name: 'all', weights: [{ variant: 'on', weight: 1 }], holdSeconds: null }],
  guards: [{ kind: 'prometheus', name: 'errors', query: 'errors{v="$variant"}', threshold: { above: 1 } }],
  onBreach: 'rollback',
  guardIntervalSeconds: 60,
  ...NOT_STARTED,
  events: [{ at: AT, action: 'created', by: ANN }],
  createdBy: ANN,
  version: 1,
  createdAt: AT,
  updatedAt: AT,
  ...fields,
});

describeEachFreshDatabase('Release templates and plans', (opened) => {
  it('keeps templates by key in their project, in key order, each key once', async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.releases.templates.insert(aTemplate('rtp_2', 'slow'));
    await store.releases.templates.insert(aTemplate('rtp_1', 'fast'));
    await expect(store.releases.templates.insert(aTemplate('rtp_3', 'fast'))).rejects.toThrow(
      UniqueViolation,
    );
    const page = await store.releases.templates.list('prj_m', { limit: 10 });
    expect(page.items.map((t) => t.key)).toEqual(['fast', 'slow']);
    expect(
      await store.releases.templates.update({ ...aTemplate('rtp_1', 'fast'), name: 'Fast', version: 2 }, 1),
    ).toBe(true);
    expect(await store.releases.templates.update({ ...aTemplate('rtp_1', 'fast'), version: 2 }, 1)).toBe(
      false,
    );
    expect((await store.releases.templates.findByKey('prj_m', 'fast'))?.name).toBe('Fast');
    expect(await store.releases.templates.delete('rtp_1')).toBe(true);
    expect(await store.releases.templates.delete('rtp_1')).toBe(false);
  });

  it('keeps one plan per flag and environment, written back only over the version it was read at', async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.releases.insertPlan(aPlan('rpl_1'));
    await expect(store.releases.insertPlan(aPlan('rpl_2'))).rejects.toThrow(UniqueViolation);
    await store.releases.insertPlan(aPlan('rpl_3', { environment: 'staging' }));
    const running = aPlan('rpl_1', { status: 'running', current: 0, version: 2 });
    expect(await store.releases.updatePlan(running, 1)).toBe(true);
    expect(await store.releases.updatePlan(aPlan('rpl_1', { status: 'paused', version: 2 }), 1)).toBe(false);
    expect(await store.releases.findPlan('flg_x', 'production')).toEqual(running);
    expect((await store.releases.plansWithStatus(['running'])).map((p) => p.id)).toEqual(['rpl_1']);
    expect((await store.releases.plansWithStatus(['running', 'draft'])).map((p) => p.id)).toEqual([
      'rpl_1',
      'rpl_3',
    ]);
    expect(
      await store.transaction((tx) => tx.releases.findPlanById('rpl_3', { forUpdate: true })),
    ).toMatchObject({
      environment: 'staging',
    });
    expect(await store.releases.deletePlan('rpl_3')).toBe(true);
    expect(await store.releases.findPlanById('rpl_3')).toBeUndefined();
  });

  it("deletes a flag's plans with the flag", async () => {
    const { store } = opened();
    await givenProjectM(store);
    await store.releases.insertPlan(aPlan('rpl_1'));
    await store.deleteFlag('flg_x');
    expect(await store.releases.findPlanById('rpl_1')).toBeUndefined();
  });
});
