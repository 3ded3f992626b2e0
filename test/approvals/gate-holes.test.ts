import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeScheduler } from '../../src/services/governance/change-scheduler.ts';
import { ADMIN_KEY, createKey, FakeClock, type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

/**
 * The gate's holes of round 4 (issue 34, decisions 1851–1852), each as its repro: what an
 * editor could do to a guarded production without anyone approving it, and may no longer.
 */
describeEachDatabase('the gate decides when a change lands', (database) => {
  const clock = new FakeClock();
  let node: Harness;
  let scheduler: ChangeScheduler;
  let projectId: string;
  let ann: { id: string; secret: string };
  let bob: { id: string; secret: string };

  const call = (key: string, method: string, url: string, body?: unknown) =>
    node.call(method, url, { key, ...(body === undefined ? {} : { body }) });
  const flagNamed = async (key: string) =>
    (await call(ADMIN_KEY, 'GET', `/v1/projects/default/flags/${key}`)).body;
  const newFlag = async (key: string) => {
    const created = await call(ADMIN_KEY, 'POST', '/v1/projects/default/flags', { key });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const schedule = async (key: string, flagId: string, environment: string, patch: object) => {
    const res = await call(key, 'POST', `/v1/flags/${flagId}/scheduled-changes`, {
      at: new Date(clock.now + 1000).toISOString(),
      environment,
      patch,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const runDue = () => {
    clock.advance(2000);
    return scheduler.runDue();
  };
  const scheduled = async (flagId: string, id: string) =>
    (await call(ADMIN_KEY, 'GET', `/v1/flags/${flagId}/scheduled-changes/${id}`)).body;
  /** The writes of the flag audited in `name`'s name. */
  const updatesBy = async (flagId: string, name: string) =>
    (await call(ADMIN_KEY, 'GET', `/v1/projects/default/audit-log?resourceId=${flagId}`)).body.filter(
      (e: { action: string; actor: { name: string } }) =>
        ['flag.updated', 'flag.archived', 'flag.unarchived'].includes(e.action) && e.actor.name === name,
    );

  beforeAll(async () => {
    node = await startHarness(database, { clock });
    scheduler = new ChangeScheduler(node.store, node.services.scheduledChanges, { clock: clock.read });
    projectId = (await call(ADMIN_KEY, 'GET', '/v1/projects/default')).body.id;
    ann = await createKey(node.services, projectId, 'editor', null, { name: 'ann' });
    bob = await createKey(node.services, projectId, 'editor', null, { name: 'bob' });
    const guarded = await call(ADMIN_KEY, 'PATCH', '/v1/projects/default/environments/production', {
      requiredApprovals: 1,
    });
    expect(guarded.status).toBe(200);
  });
  afterAll(() => node?.close());

  describe('a schedule passes the gate when it runs (issue 34, 1)', () => {
    it('keeps the kill switch off: a no-op schedule that would turn production back on becomes a change request', async () => {
      const flagId = await newFlag('kill-switch');
      expect(
        (await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}?environment=production`, { enabled: true }))
          .status,
      ).toBe(200);
      // Production is on: scheduling "on" changes nothing now, so it needs no approval now.
      const id = await schedule(ann.secret, flagId, 'production', { enabled: true });
      // The kill switch.
      expect(
        (await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}?environment=production`, { enabled: false }))
          .status,
      ).toBe(200);

      expect(await runDue()).toEqual({ applied: [], failed: [id] });
      expect((await flagNamed('kill-switch')).environments.production.enabled).toBe(false);
      expect(await updatesBy(flagId, 'ann')).toEqual([]);
      const change = await scheduled(flagId, id);
      expect(change).toMatchObject({
        status: 'failed',
        failure: expect.stringMatching(/production.*change request chr_/),
      });
      const requests = (
        await call(bob.secret, 'GET', `/v1/projects/default/change-requests?status=open&flagId=${flagId}`)
      ).body;
      expect(requests).toMatchObject([
        {
          kind: 'flag.patch',
          author: { name: 'ann' },
          changes: [{ path: '/environments/production/enabled', before: false, after: true }],
        },
      ]);
    });

    it('keeps an archived flag archived: a schedule made in development cannot unarchive it everywhere', async () => {
      const flagId = await newFlag('retired');
      const id = await schedule(ann.secret, flagId, 'development', { archived: false });
      expect((await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}`, { archived: true })).status).toBe(200);

      expect(await runDue()).toEqual({ applied: [], failed: [id] });
      expect((await flagNamed('retired')).archived).toBe(true);
      expect((await scheduled(flagId, id)).failure).toMatch(/production/);
    });

    it('still runs a schedule that reaches no guarded environment, and one its request approved', async () => {
      const flagId = await newFlag('launch');
      const free = await schedule(ann.secret, flagId, 'development', { enabled: true });
      const asked = await call(ann.secret, 'POST', `/v1/flags/${flagId}/scheduled-changes`, {
        at: new Date(clock.now + 60_000).toISOString(),
        environment: 'production',
        patch: { enabled: true },
      });
      expect(asked.status).toBe(202);
      expect(
        (await call(bob.secret, 'POST', `/v1/change-requests/${asked.body.id}/approve`, {})).body.status,
      ).toBe('applied');
      expect((await runDue()).applied).toEqual([free]);
      clock.advance(60_000);
      expect((await scheduler.runDue()).applied).toHaveLength(1);
      expect((await flagNamed('launch')).environments).toMatchObject({
        development: { enabled: true },
        production: { enabled: true },
      });
    });
  });

  describe('flag-wide fields are gated as such (issue 34, 2)', () => {
    const document = (metadata: object = {}) => ({
      flags: {
        'old-banner': {
          state: 'ENABLED',
          variants: { on: true, off: false },
          defaultVariant: 'on',
          metadata,
        },
      },
    });

    it('turns a flagd import into development that would unarchive a flag into a change request for production', async () => {
      await newFlag('old-banner');
      expect(
        (await call(ADMIN_KEY, 'PATCH', '/v1/projects/default/flags/old-banner', { archived: true })).status,
      ).toBe(200);
      const imported = await call(
        ann.secret,
        'POST',
        '/v1/projects/default/environments/development/flagd',
        document(),
      );
      expect(imported.status, JSON.stringify(imported.body)).toBe(202);
      expect(imported.body.environments).toContain('production');
      expect((await flagNamed('old-banner')).archived).toBe(true);
    });

    it('gates a flagd import that only changes metadata, and a PATCH of metadata', async () => {
      expect(
        (await call(ADMIN_KEY, 'POST', '/v1/projects/default/environments/development/flagd', document()))
          .status,
      ).toBe(200);
      const imported = await call(
        ann.secret,
        'POST',
        '/v1/projects/default/environments/development/flagd',
        document({ owner: 'growth' }),
      );
      expect(imported.status, JSON.stringify(imported.body)).toBe(202);
      expect(imported.body.environments).toContain('production');
      const patched = await call(ann.secret, 'PATCH', '/v1/projects/default/flags/old-banner', {
        metadata: { owner: 'growth' },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(202);
      expect(patched.body.changes).toEqual([{ path: '/metadata', before: {}, after: { owner: 'growth' } }]);
      expect((await flagNamed('old-banner')).metadata).toEqual({});
    });
  });

  describe('a new flag is not served in a guarded environment before a gated write (issue 34, 4)', () => {
    const evaluate = (key: string, environment: string) =>
      call(ADMIN_KEY, 'GET', `/v1/flags/${key}?project=default&environment=${environment}`);
    const bulk = async (environment: string) =>
      (
        await call(ADMIN_KEY, 'POST', '/v1/evaluate?project=default', {
          environment,
          attributes: { targetingKey: 'u1' },
        })
      ).body.flags.map((result: { key: string }) => result.key);
    const flagdKeys = async (environment: string) =>
      Object.keys(
        (await call(ADMIN_KEY, 'GET', `/v1/projects/default/environments/${environment}/flagd`)).body.flags,
      );

    it("answers FLAG_NOT_FOUND in production for an editor's new flag, until an approved write configures it there", async () => {
      const created = await call(ann.secret, 'POST', '/v1/projects/default/flags', {
        key: 'banner-text',
        type: 'string',
        variants: [
          { key: 'off', value: 'Buy now, 90% off' },
          { key: 'on', value: 'Welcome' },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const unserved = await evaluate('banner-text', 'production');
      expect(unserved.status).toBe(404);
      expect(unserved.body.code).toBe('flag_not_found');
      expect(await bulk('production')).not.toContain('banner-text');
      expect(await flagdKeys('production')).not.toContain('banner-text');
      // Development requires no approvals: served there (off) at once.
      expect((await evaluate('banner-text', 'development')).body).toMatchObject({ reason: 'disabled' });
      expect(await flagdKeys('development')).toContain('banner-text');

      const asked = await call(ann.secret, 'PATCH', `/v1/flags/${created.body.id}?environment=production`, {
        offVariant: 'on',
      });
      expect(asked.status).toBe(202);
      expect((await evaluate('banner-text', 'production')).status).toBe(404);
      expect(
        (await call(bob.secret, 'POST', `/v1/change-requests/${asked.body.id}/approve`, {})).body.status,
      ).toBe('applied');
      expect((await evaluate('banner-text', 'production')).body).toMatchObject({
        reason: 'disabled',
        value: 'Welcome',
      });
      expect(await flagdKeys('production')).toContain('banner-text');
    });

    it("serves an admin's new flag everywhere at once, as before", async () => {
      expect(
        (await call(ADMIN_KEY, 'POST', '/v1/projects/default/flags', { key: 'admins-flag' })).status,
      ).toBe(201);
      expect((await evaluate('admins-flag', 'production')).body).toMatchObject({ reason: 'disabled' });
    });

    it('keeps a flag a flagd import creates from being served in the other guarded environments', async () => {
      const imported = await call(ann.secret, 'POST', '/v1/projects/default/environments/development/flagd', {
        flags: {
          'imported-banner': { state: 'ENABLED', variants: { on: true, off: false }, defaultVariant: 'on' },
        },
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect((await evaluate('imported-banner', 'development')).body).toMatchObject({ value: true });
      expect((await evaluate('imported-banner', 'production')).status).toBe(404);
    });
  });

  describe('a revoked author’s pending changes do not run (issue 34, 5)', () => {
    it('fails the scheduled change of a key revoked since, saying so, and writes nothing', async () => {
      const carol = await createKey(node.services, projectId, 'editor', null, { name: 'carol' });
      const flagId = await newFlag('carols-flag');
      const id = await schedule(carol.secret, flagId, 'development', { enabled: true });
      expect((await call(ADMIN_KEY, 'DELETE', `/v1/api-keys/${carol.id}`)).status).toBe(204);

      expect(await runDue()).toEqual({ applied: [], failed: [id] });
      expect((await flagNamed('carols-flag')).environments.development.enabled).toBe(false);
      expect((await scheduled(flagId, id)).failure).toMatch(/"carol" .*revoked/);
    });

    it('refuses to apply the change request of a key revoked since, and closes it', async () => {
      const dave = await createKey(node.services, projectId, 'editor', null, { name: 'dave' });
      const flagId = await newFlag('daves-flag');
      const asked = await call(dave.secret, 'PATCH', `/v1/flags/${flagId}?environment=production`, {
        enabled: true,
      });
      expect(asked.status).toBe(202);
      expect((await call(ADMIN_KEY, 'DELETE', `/v1/api-keys/${dave.id}`)).status).toBe(204);

      const approved = await call(bob.secret, 'POST', `/v1/change-requests/${asked.body.id}/approve`, {});
      expect(approved.status).toBe(409);
      expect(approved.body.detail).toMatch(/"dave" .*revoked/);
      expect((await flagNamed('daves-flag')).environments.production.enabled).toBe(false);
      const request = (await call(ADMIN_KEY, 'GET', `/v1/change-requests/${asked.body.id}`)).body;
      expect(request).toMatchObject({ status: 'withdrawn', failure: expect.stringMatching(/revoked/) });
    });
  });
});
