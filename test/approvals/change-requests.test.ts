import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createKey, type Harness, startHarness } from '../access/support.ts';
import { variantList } from '../support/builders.ts';
import { describeEachDatabase } from '../support/database.ts';
import { flagBody } from '../support/requests.ts';

const ADMIN = ADMIN_KEY;

describeEachDatabase('change requests and approvals (SPEC §10)', (database) => {
  let node: Harness;
  let projectId: string;
  let flagId: string;
  const editors: Record<'ann' | 'bob' | 'cat', string> = { ann: '', bob: '', cat: '' };
  let devEditor: string;
  let viewer: string;

  const patchFlag = (key: string, body: Record<string, unknown>, environment = 'production', headers = {}) =>
    node.call('PATCH', `/v1/flags/${flagId}?environment=${environment}`, { key, body, headers });
  const decide = (key: string, id: string, verb: string, body?: unknown) =>
    node.call('POST', `/v1/change-requests/${id}/${verb}`, { key, ...(body === undefined ? {} : { body }) });
  const flag = async () => (await node.call('GET', '/v1/projects/default/flags/checkout')).body;
  const request = async (key = editors.ann, body?: Record<string, unknown>) => {
    // By default, production switched the other way: a request must change something.
    const res = await patchFlag(key, body ?? { enabled: !(await flag()).environments.production.enabled });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body;
  };

  beforeAll(async () => {
    node = await startHarness(database);
    projectId = (await node.call('GET', '/v1/projects/default')).body.id;
    flagId = (await node.call('POST', '/v1/projects/default/flags', { body: { key: 'checkout' } })).body.id;
    for (const name of ['ann', 'bob', 'cat'] as const) {
      editors[name] = (await createKey(node.services, projectId, 'editor', null, { name })).secret;
    }
    devEditor = (await createKey(node.services, projectId, 'editor', ['development'])).secret;
    viewer = (await createKey(node.services, projectId, 'viewer')).secret;
  });
  afterAll(() => node.close());

  describe('the policy', () => {
    it('is set per environment by admins only, 0 to 5', async () => {
      const path = '/v1/projects/default/environments/production';
      expect(
        (await node.call('PATCH', path, { key: editors.ann, body: { requiredApprovals: 2 } })).status,
      ).toBe(403);
      expect((await node.call('PATCH', path, { body: { requiredApprovals: 6 } })).status).toBe(400);
      const set = await node.call('PATCH', path, { body: { requiredApprovals: 2 } });
      expect(set.status).toBe(200);
      expect(set.body.requiredApprovals).toBe(2);
      const list = await node.call('GET', '/v1/projects/default/environments');
      expect(
        list.body.map((e: { key: string; requiredApprovals: number }) => [e.key, e.requiredApprovals]),
      ).toEqual([
        ['development', 0],
        ['production', 2],
      ]);
      // Editors still rename it.
      expect((await node.call('PATCH', path, { key: editors.ann, body: { name: 'Prod' } })).status).toBe(200);
    });
  });

  describe('the life cycle', () => {
    it('answers a non-admin write to that environment with 202 and a change request, writing nothing', async () => {
      // Other environments, and admins, write directly.
      expect((await patchFlag(editors.ann, { enabled: true }, 'development')).status).toBe(200);
      const before = await flag();
      const res = await patchFlag(editors.ann, { enabled: true });
      expect(res.status).toBe(202);
      expect(res.headers.location).toBe(`/v1/change-requests/${res.body.id}`);
      expect(res.body).toMatchObject({
        flagId,
        environment: 'production',
        patch: { enabled: true },
        author: { type: 'api_key', name: 'ann' },
        status: 'open',
        approvals: [],
        baseVersion: before.version,
        requiredApprovals: 2,
      });
      expect(await flag()).toEqual(before);
    });

    it('refuses self-approval, applies at the required count, and audits every step', async () => {
      const [open] = (await node.call('GET', '/v1/projects/default/change-requests?status=open')).body;
      const own = await decide(editors.ann, open.id, 'approve');
      expect(own.status).toBe(403);
      expect(own.body.detail).toBe('Nobody approves their own change request.');
      const first = await decide(editors.bob, open.id, 'approve', { comment: 'looks right' });
      expect(first.body).toMatchObject({
        status: 'open',
        approvals: [{ by: { name: 'bob' }, comment: 'looks right' }],
      });
      expect((await decide(editors.bob, open.id, 'approve')).status).toBe(409);
      expect((await flag()).environments.production.enabled).toBe(false);
      const second = await decide(editors.cat, open.id, 'approve');
      expect(second.body).toMatchObject({ status: 'applied', decidedBy: { name: 'cat' } });
      expect((await flag()).environments.production.enabled).toBe(true);
      const events = await node.call('GET', `/v1/projects/default/audit-log?resourceId=${open.id}`);
      expect(events.body.map((e: { action: string }) => e.action).reverse()).toEqual([
        'change_request.created',
        'change_request.approved',
        'change_request.approved',
        'change_request.applied',
      ]);
      const write = await node.call(
        'GET',
        `/v1/projects/default/audit-log?resourceId=${flagId}&action=flag.updated`,
      );
      expect(write.body[0]).toMatchObject({
        actor: { name: 'cat' },
        environment: 'production',
        details: {
          changeRequest: open.id,
          author: { name: 'ann' },
          approvedBy: [{ name: 'bob' }, { name: 'cat' }],
        },
      });
      expect((await decide(editors.bob, open.id, 'withdraw')).status).toBe(409);
    });

    it('keeps a request valid across writes to other fields, and marks it conflicted on a write to the same field', async () => {
      const valid = await request(editors.ann, { defaultVariant: 'off' });
      // An admin writes another field of production meanwhile: the request is still good.
      expect((await patchFlag(ADMIN, { enabled: false })).status).toBe(200);
      await decide(editors.bob, valid.id, 'approve');
      const applied = await decide(editors.cat, valid.id, 'approve');
      expect(applied.body).toMatchObject({ status: 'applied' });
      expect((await flag()).environments.production).toMatchObject({ enabled: false, defaultVariant: 'off' });

      const stale = await request(editors.ann, { defaultVariant: 'on' });
      expect(stale.changes).toEqual([
        { path: '/environments/production/defaultVariant', before: 'off', after: 'on' },
      ]);
      // The same field, written directly by an admin: conflicted before anyone approves.
      expect((await patchFlag(ADMIN, { defaultVariant: null })).status).toBe(200);
      const shown = await node.call('GET', `/v1/change-requests/${stale.id}`);
      expect(shown.body).toMatchObject({ status: 'conflicted' });
      expect(shown.body.conflict).toMatch(/\/environments\/production\/defaultVariant/);
      const listed = await node.call('GET', '/v1/projects/default/change-requests?status=conflicted');
      expect(listed.body.map((r: { id: string }) => r.id)).toContain(stale.id);
      const current = await flag();
      const approve = await decide(editors.bob, stale.id, 'approve');
      expect(approve.status).toBe(409);
      expect(approve.body.detail).toMatch(/^The change request is conflicted/);
      expect((await decide(ADMIN, stale.id, 'apply')).status).toBe(409);
      expect(await flag()).toEqual(current);
      expect((await decide(editors.bob, stale.id, 'withdraw')).status).toBe(403);
      expect((await decide(editors.ann, stale.id, 'withdraw')).body.status).toBe('withdrawn');
    });

    it('lets others reject a request, and not its author', async () => {
      const open = await request();
      expect((await decide(editors.ann, open.id, 'reject')).status).toBe(403);
      const rejected = await decide(editors.bob, open.id, 'reject');
      expect(rejected.body).toMatchObject({ status: 'rejected', decidedBy: { name: 'bob' } });
      expect((await decide(editors.cat, open.id, 'approve')).status).toBe(409);
    });

    it('lets an admin apply a request without its approvals, audited as such; editors may not', async () => {
      const open = await request(editors.bob, { enabled: true });
      const short = await decide(editors.cat, open.id, 'apply');
      expect(short.status).toBe(403);
      expect(short.body.detail).toMatch(/needs 2 more approvals/);
      const applied = await decide(ADMIN, open.id, 'apply');
      expect(applied.body.status).toBe('applied');
      const write = await node.call(
        'GET',
        `/v1/projects/default/audit-log?resourceId=${flagId}&action=flag.updated`,
      );
      expect(write.body[0].details).toMatchObject({ changeRequest: open.id, approvalsBypassed: 2 });
    });
  });

  describe('who may', () => {
    it('refuses viewers and editors of other environments, and turns a restore or schedule into a request', async () => {
      const open = await request();
      expect((await decide(viewer, open.id, 'approve')).status).toBe(403);
      expect((await decide(devEditor, open.id, 'approve')).status).toBe(403);
      expect((await node.call('GET', `/v1/change-requests/${open.id}`, { key: viewer })).status).toBe(200);
      const restore = await node.call('POST', `/v1/flags/${flagId}/restore`, {
        key: editors.bob,
        body: { version: 1 },
      });
      expect(restore.status, JSON.stringify(restore.body)).toBe(202);
      expect(restore.body).toMatchObject({ kind: 'flag.restore', patch: { version: 1 } });
      await decide(editors.bob, restore.body.id, 'withdraw');
      const scheduled = await node.call('POST', `/v1/flags/${flagId}/scheduled-changes`, {
        key: editors.bob,
        body: { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { enabled: false } },
      });
      expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(202);
      expect(scheduled.body).toMatchObject({ kind: 'flag.schedule', environment: 'production' });
      await decide(editors.bob, scheduled.body.id, 'withdraw');
      await decide(editors.ann, open.id, 'withdraw');
    });
  });

  describe('variants are flag-wide', () => {
    const flagdDocument = (value: string) => ({
      flags: { banner: { state: 'ENABLED', variants: { a: value, b: 'B' }, defaultVariant: 'a' } },
    });
    const importInto = (key: string, environment: string, value: string) =>
      node.call('POST', `/v1/projects/default/environments/${environment}/flagd`, {
        key,
        body: flagdDocument(value),
      });

    it('sends a change of a served value to approval even when made in another environment', async () => {
      const banner = await node.call('POST', '/v1/projects/default/flags', {
        body: flagBody('banner', 'string', { a: 'A', b: 'B' }),
      });
      const bannerPath = `/v1/flags/${banner.body.id}?environment=development`;
      const changed = await node.call('PATCH', bannerPath, {
        key: editors.ann,
        body: { variants: variantList({ a: 'A2', b: 'B' }) },
      });
      // Production serves variant "a" too: its new value needs production's approvals.
      expect(changed.status, JSON.stringify(changed.body)).toBe(202);
      expect(changed.body).toMatchObject({
        environment: 'production',
        environments: ['production'],
        requiredApprovals: 2,
      });
      await decide(editors.ann, changed.body.id, 'withdraw');
      // A new variant changes nothing anyone is served: written at once.
      const added = await node.call('PATCH', bannerPath, {
        key: editors.ann,
        body: { variants: variantList({ a: 'A', b: 'B', c: 'C' }) },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    });

    it('turns a flagd import that reaches a guarded environment into a request, and lets admins and other imports through', async () => {
      const intoProduction = await importInto(editors.ann, 'production', 'A');
      expect(intoProduction.status).toBe(202);
      expect(intoProduction.body).toMatchObject({
        kind: 'flagd.import',
        flagId: null,
        environment: 'production',
      });
      await decide(editors.ann, intoProduction.body.id, 'withdraw');
      const newValue = await importInto(editors.ann, 'development', 'A-changed');
      expect(newValue.status).toBe(202);
      await decide(editors.ann, newValue.body.id, 'withdraw');
      const banner = (await node.call('GET', '/v1/projects/default/flags/banner')).body;
      expect(banner.variants.find((v: { key: string }) => v.key === 'a').value).toBe('A');
      expect((await importInto(editors.ann, 'development', 'A')).status).toBe(200);
      expect((await importInto(ADMIN, 'production', 'A-changed')).status).toBe(200);
    });
  });

  describe('bad input', () => {
    it.each([
      ['GET', '/v1/projects/default/change-requests?status=done', undefined, 400],
      ['GET', '/v1/projects/default/change-requests?limit=0', undefined, 400],
      ['GET', '/v1/change-requests/chr_nope', undefined, 404],
      ['POST', '/v1/change-requests/chr_nope/approve', {}, 404],
      ['POST', '/v1/change-requests/chr_nope/apply', undefined, 404],
    ])('%s %s answers problem+json %s', async (method, url, body, status) => {
      const res = await node.call(method, url, body === undefined ? {} : { body });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('refuses an approval body with unknown fields', async () => {
      const open = await request();
      const res = await decide(editors.bob, open.id, 'approve', { bogus: true });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      await decide(editors.ann, open.id, 'withdraw');
    });
  });
});
