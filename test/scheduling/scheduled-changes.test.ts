import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeNode } from '../../src/main.ts';
import { ChangeScheduler } from '../../src/services/governance/change-scheduler.ts';
import type { ScheduledChangeService } from '../../src/services/governance/scheduled-change-service.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { FakeClock, type Harness, openSharedDatabase, setupActor, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

const MINUTE = 60_000;

describeEachDatabase('scheduled changes (docs/product.md §10)', (database) => {
  let node: Harness;
  const clock = new FakeClock();
  let flagId: string;
  let scheduler: ChangeScheduler;

  const schedule = (body: Record<string, unknown>, id = flagId) =>
    node.call('POST', `/v1/flags/${id}/scheduled-changes`, { body });
  const inMinutes = (minutes: number) => new Date(clock.now + minutes * MINUTE).toISOString();
  const flag = async () => (await node.call('GET', '/v1/projects/default/flags/launch')).body;

  beforeAll(async () => {
    node = await startHarness(database, { clock });
    const created = await node.call('POST', '/v1/projects/default/flags', { body: { key: 'launch' } });
    flagId = created.body.id;
    scheduler = new ChangeScheduler(node.store, node.services.scheduledChanges, { clock: clock.read });
  });
  afterAll(() => node.close());

  describe('the API', () => {
    it('schedules a change, lists it and gets it, and applies nothing before its time', async () => {
      const res = await schedule({
        at: inMinutes(10),
        environment: 'production',
        patch: { enabled: true },
        comment: 'launch day',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.headers.location).toBe(`/v1/flags/${flagId}/scheduled-changes/${res.body.id}`);
      expect(res.body).toMatchObject({
        flagId,
        environment: 'production',
        patch: { enabled: true },
        comment: 'launch day',
        status: 'pending',
        author: { type: 'api_key', name: expect.any(String) },
        settledAt: null,
        failure: null,
      });
      const list = await node.call('GET', `/v1/flags/${flagId}/scheduled-changes`);
      expect(list.body.map((c: { id: string }) => c.id)).toEqual([res.body.id]);
      const one = await node.call('GET', `/v1/flags/${flagId}/scheduled-changes/${res.body.id}`);
      expect(one.body).toEqual(res.body);
      clock.advance(9 * MINUTE);
      expect(await scheduler.runDue()).toEqual({ applied: [], failed: [] });
      expect((await flag()).environments.production.enabled).toBe(false);
    });

    it('applies it on time, once, as its author, with the delay in the audit event', async () => {
      clock.advance(MINUTE);
      const [pending] = (await node.call('GET', `/v1/flags/${flagId}/scheduled-changes?status=pending`)).body;
      expect(await scheduler.runDue()).toEqual({ applied: [pending.id], failed: [] });
      expect(await scheduler.runDue()).toEqual({ applied: [], failed: [] });
      const launched = await flag();
      expect(launched.environments.production.enabled).toBe(true);
      expect(launched.version).toBe(2);
      const applied = await node.call('GET', `/v1/flags/${flagId}/scheduled-changes/${pending.id}`);
      expect(applied.body).toMatchObject({ status: 'applied', settledAt: expect.any(String) });
      const events = await node.call(
        'GET',
        `/v1/projects/default/audit-log?resourceId=${flagId}&action=flag.updated`,
      );
      expect(events.body).toHaveLength(1);
      expect(events.body[0]).toMatchObject({
        actor: pending.author,
        environment: 'production',
        requestId: `scheduled-change:${pending.id}`,
        details: { scheduledChange: pending.id, scheduledAt: pending.at, delayMs: 0 },
        after: { version: 2 },
      });
    });

    it('applies a change that fell due while no node ran at the next start, with its delay', async () => {
      const res = await schedule({ at: inMinutes(1), environment: 'production', patch: { enabled: false } });
      clock.advance(6 * MINUTE);
      // A node starting now: a new scheduler over the same database.
      const restarted = new ChangeScheduler(node.store, node.services.scheduledChanges, {
        clock: clock.read,
      });
      expect(await restarted.runDue()).toEqual({ applied: [res.body.id], failed: [] });
      const events = await node.call(
        'GET',
        `/v1/projects/default/audit-log?resourceId=${flagId}&action=flag.updated`,
      );
      expect(events.body[0].details).toEqual({
        scheduledChange: res.body.id,
        scheduledAt: res.body.at,
        delayMs: 5 * MINUTE,
      });
    });

    it('marks a change failed with the reason when its patch no longer validates, and writes nothing', async () => {
      const segment = await node.call('POST', '/v1/projects/default/segments', { body: { key: 'vips' } });
      const res = await schedule({
        at: inMinutes(1),
        environment: 'production',
        patch: { rules: [{ segments: ['vips'], conditions: [], serve: { variant: 'on' } }] },
      });
      expect(res.status).toBe(201);
      expect((await node.call('DELETE', `/v1/segments/${segment.body.id}`)).status).toBe(204);
      const before = await flag();
      clock.advance(2 * MINUTE);
      expect(await scheduler.runDue()).toEqual({ applied: [], failed: [res.body.id] });
      const failed = await node.call('GET', `/v1/flags/${flagId}/scheduled-changes/${res.body.id}`);
      expect(failed.body.status).toBe('failed');
      expect(failed.body.failure).toMatch(/no segment "vips" in this project/);
      expect(await flag()).toEqual(before);
      const events = await node.call(
        'GET',
        `/v1/projects/default/audit-log?resourceId=${flagId}&action=flag.scheduled_change_failed`,
      );
      expect(events.body[0].details).toEqual({ scheduledChange: res.body.id, reason: failed.body.failure });
    });

    it('cancels a pending change, which then never applies; a settled one cannot be cancelled', async () => {
      const res = await schedule({ at: inMinutes(1), environment: 'production', patch: { enabled: true } });
      const path = `/v1/flags/${flagId}/scheduled-changes/${res.body.id}`;
      expect((await node.call('DELETE', path)).status).toBe(204);
      expect((await node.call('GET', path)).body.status).toBe('cancelled');
      clock.advance(2 * MINUTE);
      expect(await scheduler.runDue()).toEqual({ applied: [], failed: [] });
      const again = await node.call('DELETE', path);
      expect(again.status).toBe(409);
      expect(again.body.detail).toMatch(/is cancelled/);
    });

    it.each([
      [
        'a time in the past',
        { at: '2001-01-01T00:00:00Z', environment: 'production', patch: { enabled: true } },
        400,
      ],
      [
        'a time that is not one',
        { at: 'tomorrow', environment: 'production', patch: { enabled: true } },
        400,
      ],
      ['no environment', { at: '2999-01-01T00:00:00Z', patch: { enabled: true } }, 400],
      [
        'an unknown patch field',
        { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { bogus: 1 } },
        400,
      ],
      [
        'a patch that does not validate',
        { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { defaultVariant: 'nope' } },
        400,
      ],
      [
        'an unknown environment',
        { at: '2999-01-01T00:00:00Z', environment: 'nowhere', patch: { enabled: true } },
        404,
      ],
      ['a body that is not an object', [], 400],
    ])('answers %s with problem+json', async (_, body, status) => {
      const res = await schedule(body as Record<string, unknown>);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('answers 404 for an unknown flag or change and 400 for an unknown status', async () => {
      expect(
        (await schedule({ at: inMinutes(1), environment: 'production', patch: {} }, 'flg_nope')).status,
      ).toBe(404);
      expect((await node.call('GET', `/v1/flags/${flagId}/scheduled-changes/sch_nope`)).status).toBe(404);
      expect((await node.call('DELETE', `/v1/flags/${flagId}/scheduled-changes/sch_nope`)).status).toBe(404);
      expect((await node.call('GET', `/v1/flags/${flagId}/scheduled-changes?status=done`)).status).toBe(400);
    });
  });
});

describe.skipIf(!process.env.FLAGSTAFF_TEST_DATABASE_URL)('scheduled changes on two PostgreSQL nodes', () => {
  it('applies each due change exactly once, whichever node gets there', async () => {
    const shared = await openSharedDatabase('postgres');
    try {
      const [first, second] = shared.stores;
      await bootstrap(first, 'fsk_two-nodes-admin-key-0123456789abcdefghij');
      const clock = new FakeClock();
      const nodes = [
        composeNode(first, { clock: clock.read }).services,
        composeNode(second, { clock: clock.read }).services,
      ];
      const scheduled: string[] = [];
      for (let f = 0; f < 8; f++) {
        const flag = await nodes[0]?.flags.create(setupActor, 'default', { key: `flag-${f}` });
        for (let c = 1; c <= 3; c++) {
          const change = await nodes[f % 2]?.scheduledChanges.schedule(setupActor, flag?.id as string, {
            at: new Date(clock.now + c * 1000).toISOString(),
            environment: 'production',
            patch: { description: `change ${c}` },
          });
          scheduled.push(change !== undefined && 'applied' in change ? change.applied.id : '');
        }
      }
      clock.advance(10_000);
      const schedulers = [first, second].map(
        (store, i) =>
          new ChangeScheduler(store, nodes[i]?.scheduledChanges as ScheduledChangeService, {
            clock: clock.read,
          }),
      );
      const applied: string[] = [];
      // Both nodes at once, pass after pass, until nothing is pending (a node that lost a race on a
      // flag's version leaves the change to the next pass).
      for (let pass = 0; pass < 20; pass++) {
        const results = await Promise.all(schedulers.map((s) => s.runDue()));
        for (const result of results) applied.push(...result.applied);
        if ((await first.pendingChanges.due(new Date(clock.now).toISOString(), 100)).length === 0) break;
      }
      expect([...applied].sort()).toEqual([...scheduled].sort());
      for (let f = 0; f < 8; f++) {
        const flag = await first.findFlagByKey(
          (await first.findProject('default'))?.id as string,
          `flag-${f}`,
        );
        expect(flag?.version).toBe(4);
        expect(flag?.description).toBe('change 3');
      }
      const writes = await first.listAuditEvents(null, { action: 'flag.updated' }, { limit: 1000 });
      expect(writes.items).toHaveLength(scheduled.length);
    } finally {
      await shared.close();
    }
  });
});
