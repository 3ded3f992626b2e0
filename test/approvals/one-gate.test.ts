import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeScheduler } from '../../src/services/governance/change-scheduler.ts';
import {
  ADMIN_KEY,
  createKey,
  FakeClock,
  type Harness,
  type Reply,
  startHarness,
} from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

/**
 * The gate's change requests (docs/decisions/1700-one-gate.md): they record the fields they
 * change, survive unrelated writes, turn conflicted on a write to those fields, and apply only
 * what their author changed. Admins write directly, audited; environment governance is theirs.
 */
describeEachDatabase('one gate: change requests that stay valid', (database) => {
  const clock = new FakeClock();
  let node: Harness;
  let scheduler: ChangeScheduler;
  let ann: string;
  let bob: string;
  let flagId: string;

  const call = (key: string, method: string, url: string, body?: unknown) =>
    node.call(method, url, { key, ...(body === undefined ? {} : { body }) });
  const flag = async () => (await call(ADMIN_KEY, 'GET', '/v1/projects/default/flags/checkout')).body;
  const requested = async (res: Reply) => {
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body;
  };
  const approve = (id: string, key = bob) => call(key, 'POST', `/v1/change-requests/${id}/approve`, {});
  /** A change scheduled by `key` a second ahead, then the scheduler's run once it falls due. */
  const scheduleAndRun = async (key: string, environment: string, patch: object) => {
    const scheduled = await call(key, 'POST', `/v1/flags/${flagId}/scheduled-changes`, {
      at: new Date(clock.now + 1000).toISOString(),
      environment,
      patch,
    });
    expect(scheduled.status).toBe(201);
    clock.advance(2000);
    return { id: scheduled.body.id as string, ran: await scheduler.runDue() };
  };
  const actions = async (resourceId: string) =>
    (await call(ADMIN_KEY, 'GET', `/v1/projects/default/audit-log?resourceId=${resourceId}`)).body.map(
      (e: { action: string }) => e.action,
    );

  beforeAll(async () => {
    node = await startHarness(database, { clock });
    scheduler = new ChangeScheduler(node.store, node.services.scheduledChanges, { clock: clock.read });
    const projectId = (await call(ADMIN_KEY, 'GET', '/v1/projects/default')).body.id;
    ann = (await createKey(node.services, projectId, 'editor', null, { name: 'ann' })).secret;
    bob = (await createKey(node.services, projectId, 'editor', null, { name: 'bob' })).secret;
    flagId = (await call(ADMIN_KEY, 'POST', '/v1/projects/default/flags', { key: 'checkout' })).body.id;
    await call(ADMIN_KEY, 'PATCH', '/v1/projects/default/environments/production', { requiredApprovals: 1 });
  });
  afterAll(() => node?.close());

  it('applies an approved production request after a scheduled change in development bumped the flag', async () => {
    const request = await requested(
      await call(ann, 'PATCH', `/v1/flags/${flagId}?environment=production`, { enabled: true }),
    );
    expect(request).toMatchObject({
      kind: 'flag.patch',
      environment: 'production',
      environments: ['production'],
      changes: [{ path: '/environments/production/enabled', before: false, after: true }],
      status: 'open',
      conflict: null,
    });
    // Development has no approvals: Ann's schedule there is written at once, and runs at its time.
    const scheduled = await scheduleAndRun(ann, 'development', { enabled: true });
    expect(scheduled.ran.applied).toEqual([scheduled.id]);
    expect((await flag()).version).toBe(2);

    const applied = await approve(request.id);
    expect(applied.body).toMatchObject({ status: 'applied', decidedBy: { name: 'bob' } });
    expect((await flag()).environments).toMatchObject({
      development: { enabled: true },
      production: { enabled: true },
    });
  });

  it('applies only what the author changed, over what others wrote since', async () => {
    const request = await requested(
      await call(ann, 'PATCH', `/v1/flags/${flagId}?environment=production`, { defaultVariant: 'off' }),
    );
    // An admin switches production off meanwhile: another field.
    expect(
      (await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}?environment=production`, { enabled: false }))
        .status,
    ).toBe(200);
    expect((await approve(request.id)).body.status).toBe('applied');
    expect((await flag()).environments.production).toMatchObject({ enabled: false, defaultVariant: 'off' });
  });

  it('marks a request conflicted when its field is written, shows it before approval, and refuses it with 409', async () => {
    const request = await requested(
      await call(ann, 'PATCH', `/v1/projects/default/flags/checkout?environment=production`, {
        enabled: true,
      }),
    );
    // The same field, by an admin's scheduled change that falls due.
    await scheduleAndRun(ADMIN_KEY, 'production', { enabled: true });
    const shown = await call(bob, 'GET', `/v1/change-requests/${request.id}`);
    expect(shown.body.status).toBe('conflicted');
    expect(shown.body.conflict).toMatch(/\/environments\/production\/enabled .*changed, by /);
    const listed = await call(bob, 'GET', '/v1/projects/default/change-requests?status=conflicted');
    expect(listed.body.map((r: { id: string }) => r.id)).toContain(request.id);
    const open = await call(bob, 'GET', '/v1/projects/default/change-requests?status=open');
    expect(open.body.map((r: { id: string }) => r.id)).not.toContain(request.id);

    const refused = await approve(request.id);
    expect(refused.status).toBe(409);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body.detail).toMatch(
      /^The change request is conflicted: .*\/environments\/production\/enabled/,
    );
    expect((await call(ADMIN_KEY, 'POST', `/v1/change-requests/${request.id}/apply`, {})).status).toBe(409);
    expect((await call(ann, 'POST', `/v1/change-requests/${request.id}/withdraw`, {})).body.status).toBe(
      'withdrawn',
    );
  });

  it('lets admins write directly, audited as theirs, with archive and unarchive as their own actions', async () => {
    const before = await flag();
    const direct = await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}?environment=production`, {
      enabled: !before.environments.production.enabled,
    });
    expect(direct.status).toBe(200);
    expect((await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}`, { archived: true })).status).toBe(200);
    expect((await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}`, { archived: false })).status).toBe(200);
    expect((await actions(flagId)).slice(0, 3)).toEqual(['flag.unarchived', 'flag.archived', 'flag.updated']);
    const archived = await call(ADMIN_KEY, 'GET', `/v1/projects/default/audit-log?action=flag.archived`);
    expect(
      archived.body.map((e: { resource: { id: string }; actor: { type: string } }) => e.resource.id),
    ).toEqual([flagId]);
    // An editor's archive of a flag served in production waits for approval.
    const request = await requested(await call(ann, 'PATCH', `/v1/flags/${flagId}`, { archived: true }));
    expect(request).toMatchObject({
      patch: { archived: true },
      changes: [{ path: '/archived', before: false, after: true }],
    });
    expect((await approve(request.id)).body.status).toBe('applied');
    expect((await actions(flagId))[0]).toBe('flag.archived');
    expect((await call(ADMIN_KEY, 'PATCH', `/v1/flags/${flagId}`, { archived: false })).status).toBe(200);
  });

  it('applies approved restores, schedules, deletes, segment changes and flagd imports', async () => {
    // A segment production uses.
    const segment = await call(ADMIN_KEY, 'POST', '/v1/projects/default/segments', {
      key: 'vip',
      included: ['u1'],
    });
    const other = (await call(ADMIN_KEY, 'POST', '/v1/projects/default/flags', { key: 'banner' })).body.id;
    await call(ADMIN_KEY, 'PATCH', `/v1/flags/${other}?environment=production`, {
      enabled: true,
      rules: [{ segments: ['vip'], serve: { variant: 'off' } }],
    });
    const segmentRequest = await requested(
      await call(ann, 'PATCH', `/v1/segments/${segment.body.id}`, { included: ['u1', 'u2'] }),
    );
    expect(segmentRequest).toMatchObject({ kind: 'segment.patch', flagId: null, segmentId: segment.body.id });
    expect((await approve(segmentRequest.id)).body.status).toBe('applied');
    expect((await call(ADMIN_KEY, 'GET', `/v1/segments/${segment.body.id}`)).body.included).toEqual([
      'u1',
      'u2',
    ]);

    const restore = await requested(await call(ann, 'POST', `/v1/flags/${other}/restore`, { version: 1 }));
    expect(restore.changes.map((c: { path: string }) => c.path).sort()).toEqual([
      '/environments/production/enabled',
      '/environments/production/rules',
    ]);
    expect((await approve(restore.id)).body.status).toBe('applied');
    const restored = (await call(ADMIN_KEY, 'GET', '/v1/projects/default/flags/banner')).body;
    expect(restored.environments.production).toMatchObject({ enabled: false, rules: [] });
    expect((await actions(other))[0]).toBe('flag.restored');

    const at = new Date(clock.now + 60_000).toISOString();
    const schedule = await requested(
      await call(ann, 'POST', `/v1/flags/${other}/scheduled-changes`, {
        at,
        environment: 'production',
        patch: { enabled: true },
      }),
    );
    expect(schedule).toMatchObject({ kind: 'flag.schedule', patch: { at, patch: { enabled: true } } });
    expect((await approve(schedule.id)).body.status).toBe('applied');
    const pending = await call(ADMIN_KEY, 'GET', `/v1/flags/${other}/scheduled-changes?status=pending`);
    expect(pending.body).toMatchObject([{ at, environment: 'production', patch: { enabled: true } }]);
    clock.advance(61_000);
    await scheduler.runDue();
    expect(
      (await call(ADMIN_KEY, 'GET', '/v1/projects/default/flags/banner')).body.environments.production
        .enabled,
    ).toBe(true);

    const flagd = await requested(
      await call(ann, 'POST', '/v1/projects/default/environments/production/flagd', {
        flags: { banner: { state: 'DISABLED', variants: { on: true, off: false }, defaultVariant: 'on' } },
      }),
    );
    expect(flagd.changes).toContainEqual({
      path: '/banner/environments/production/enabled',
      before: true,
      after: false,
    });
    expect((await approve(flagd.id)).body.status).toBe('applied');
    expect(
      (await call(ADMIN_KEY, 'GET', '/v1/projects/default/flags/banner')).body.environments.production
        .enabled,
    ).toBe(false);

    const remove = await requested(await call(ann, 'DELETE', '/v1/projects/default/flags/banner'));
    expect(remove).toMatchObject({ kind: 'flag.delete', flagId: other, patch: {} });
    expect((await approve(remove.id)).body.status).toBe('applied');
    expect((await call(ADMIN_KEY, 'GET', '/v1/projects/default/flags/banner')).status).toBe(404);
  });

  describe('environment governance', () => {
    it("is an admin's: editors may not delete an environment or change its protection or approvals", async () => {
      const path = '/v1/projects/default/environments/production';
      for (const body of [{ protected: false }, { requiredApprovals: 0 }]) {
        const res = await call(ann, 'PATCH', path, body);
        expect(res.status, JSON.stringify(body)).toBe(403);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      expect((await call(ann, 'DELETE', '/v1/projects/default/environments/development')).status).toBe(403);
      // The rest of the environment is still theirs, and sending the values as they are is no change.
      const renamed = await call(ann, 'PATCH', path, { name: 'Prod', protected: true, requiredApprovals: 1 });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      const env = (await call(ADMIN_KEY, 'GET', path)).body;
      expect(env).toMatchObject({ name: 'Prod', protected: true, requiredApprovals: 1 });
    });
  });
});
