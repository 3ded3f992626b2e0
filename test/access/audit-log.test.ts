import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { ADMIN_KEY, type Harness, type Reply, startHarness } from './support.ts';

interface Event {
  id: string;
  at: string;
  actor: { type: string; id: string; name: string };
  action: string;
  resource: { type: string; id: string; key: string | null };
  environment?: string;
  // biome-ignore lint/suspicious/noExplicitAny: snapshots of whatever resource the event is about
  before: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  after: any;
  requestId: string;
}

describeEachDatabase('audit log (docs/product.md §2 Audit event, §4)', (database) => {
  let node: Harness;
  let admin: { id: string; name: string };
  const secrets: string[] = [ADMIN_KEY];

  /** The newest event of the whole installation, which must come from `reply`'s request. */
  const newest = async (reply: Reply): Promise<Event> => {
    const [event] = (await node.call('GET', '/v1/audit-log?limit=1')).body as Event[];
    expect(event?.requestId).toBe(reply.headers['x-request-id']);
    expect(event?.actor).toEqual({ type: 'api_key', id: admin.id, name: admin.name });
    return event as Event;
  };
  const count = async () => ((await node.call('GET', '/v1/audit-log?limit=1000')).body as Event[]).length;

  beforeAll(async () => {
    node = await startHarness(database);
    const keys = (await node.call('GET', '/v1/api-keys')).body as { id: string; name: string }[];
    admin = keys[0] as { id: string; name: string };
  });
  afterAll(() => node?.close());

  describe('records who changed what, before and after, for every write', () => {
    let projectId: string;
    let flagId: string;
    let segmentId: string;

    it('project.created, project.updated', async () => {
      const created = await node.call('POST', '/v1/projects', { body: { key: 'shop', name: 'Shop' } });
      projectId = created.body.id;
      expect(await newest(created)).toMatchObject({
        action: 'project.created',
        resource: { type: 'project', id: projectId, key: 'shop' },
        before: null,
        after: {
          id: projectId,
          key: 'shop',
          name: 'Shop',
          version: 1,
          environments: ['development', 'production'],
        },
      });
      const updated = await node.call('PATCH', '/v1/projects/shop', { body: { name: 'The shop' } });
      expect(await newest(updated)).toMatchObject({
        action: 'project.updated',
        before: { name: 'Shop', version: 1 },
        after: { name: 'The shop', version: 2 },
      });
    });

    it('environment.created, environment.updated, environment.deleted', async () => {
      const created = await node.call('POST', '/v1/projects/shop/environments', {
        body: { key: 'staging', copyFrom: 'production' },
      });
      expect(await newest(created)).toMatchObject({
        action: 'environment.created',
        resource: { type: 'environment', id: created.body.id, key: 'staging' },
        environment: 'staging',
        before: null,
        after: { key: 'staging', copyFrom: 'production' },
      });
      const updated = await node.call('PATCH', '/v1/projects/shop/environments/staging', {
        body: { description: 'pre-release' },
      });
      expect(await newest(updated)).toMatchObject({
        action: 'environment.updated',
        environment: 'staging',
        before: { description: '' },
        after: { description: 'pre-release', version: 2 },
      });
      const deleted = await node.call('DELETE', '/v1/projects/shop/environments/staging');
      expect(await newest(deleted)).toMatchObject({
        action: 'environment.deleted',
        environment: 'staging',
        before: { key: 'staging', version: 2 },
        after: null,
      });
    });

    it('flag.created, flag.updated (with the environment it changed), flag.deleted', async () => {
      const created = await node.call('POST', '/v1/projects/shop/flags', { body: { key: 'checkout' } });
      flagId = created.body.id;
      expect(await newest(created)).toMatchObject({
        action: 'flag.created',
        resource: { type: 'flag', id: flagId, key: 'checkout' },
        before: null,
        after: { key: 'checkout', version: 1, environments: { production: { enabled: false } } },
      });
      const updated = await node.call('PATCH', `/v1/flags/${flagId}?environment=production`, {
        body: { enabled: true },
      });
      expect(await newest(updated)).toMatchObject({
        action: 'flag.updated',
        environment: 'production',
        before: { version: 1, environments: { production: { enabled: false } } },
        after: { version: 2, environments: { production: { enabled: true } } },
      });
    });

    it('segment.created, segment.updated, segment.deleted', async () => {
      const created = await node.call('POST', '/v1/projects/shop/segments', {
        body: { key: 'dutch', included: ['u1'] },
      });
      segmentId = created.body.id;
      expect(await newest(created)).toMatchObject({
        action: 'segment.created',
        resource: { type: 'segment', id: segmentId, key: 'dutch' },
        before: null,
        after: { key: 'dutch', included: ['u1'] },
      });
      const updated = await node.call('PATCH', `/v1/segments/${segmentId}`, {
        body: { included: ['u1', 'u2'] },
      });
      expect(await newest(updated)).toMatchObject({
        action: 'segment.updated',
        before: { included: ['u1'], version: 1 },
        after: { included: ['u1', 'u2'], version: 2 },
      });
      const deleted = await node.call('DELETE', `/v1/segments/${segmentId}`);
      expect(await newest(deleted)).toMatchObject({
        action: 'segment.deleted',
        before: { key: 'dutch' },
        after: null,
      });
    });

    it('api_key.created and api_key.revoked, for project and organisation-wide keys, without the secret', async () => {
      for (const url of ['/v1/projects/shop/api-keys', '/v1/api-keys']) {
        const created = await node.call('POST', url, { body: { name: 'ci', role: 'evaluator' } });
        secrets.push(created.body.secret);
        const event = await newest(created);
        expect(event).toMatchObject({
          action: 'api_key.created',
          resource: { type: 'api_key', id: created.body.id, key: created.body.prefix },
          before: null,
          after: { id: created.body.id, role: 'evaluator', revokedAt: null },
        });
        expect(Object.keys(event.after)).not.toContain('secret');
        expect(Object.keys(event.after)).not.toContain('secretHash');
        const revoked = await node.call('DELETE', `/v1/api-keys/${created.body.id}`);
        expect(await newest(revoked)).toMatchObject({
          action: 'api_key.revoked',
          before: { revokedAt: null },
          after: { revokedAt: expect.any(String) },
        });
      }
    });

    it('flag.deleted and project.deleted (the latter in the installation’s log)', async () => {
      const deletedFlag = await node.call('DELETE', `/v1/flags/${flagId}`);
      expect(await newest(deletedFlag)).toMatchObject({
        action: 'flag.deleted',
        before: { key: 'checkout', version: 2 },
        after: null,
      });
      const deleted = await node.call('DELETE', '/v1/projects/shop');
      expect(await newest(deleted)).toMatchObject({
        action: 'project.deleted',
        resource: { type: 'project', id: projectId, key: 'shop' },
        before: { key: 'shop', name: 'The shop' },
        after: null,
      });
    });
  });

  it('records nothing for a write that fails', async () => {
    await node.call('POST', '/v1/projects', { body: { key: 'quiet' } });
    const flag = (await node.call('POST', '/v1/projects/quiet/flags', { body: { key: 'f' } })).body;
    const before = await count();
    const failures = [
      await node.call('POST', '/v1/projects/quiet/flags', { body: { key: 'f' } }),
      await node.call('POST', '/v1/projects/quiet/flags', { body: { key: 'g', type: 'string' } }),
      await node.call('POST', '/v1/projects/quiet/segments', {
        body: { key: 's', rules: [{ type: 'attribute', attribute: 'a', operator: 'matches', value: '(' }] },
      }),
      await node.call('PATCH', `/v1/flags/${flag.id}`, {
        body: { enabled: true },
        headers: { 'if-match': '"7"' },
      }),
      await node.call('DELETE', '/v1/projects/quiet/environments/nope'),
      await node.call('POST', '/v1/projects', { body: { key: 'quiet' } }),
      await node.call('POST', '/v1/projects/quiet/api-keys', {
        body: { name: 'k', role: 'viewer', environments: ['nope'] },
      }),
    ];
    expect(failures.map((r) => r.status)).toEqual([409, 400, 400, 412, 404, 409, 400]);
    expect(await count()).toBe(before);
  });

  it('lists a project’s events newest first, filters them, and pages with Link', async () => {
    await node.call('POST', '/v1/projects', { body: { key: 'paged' } });
    const flags = [];
    for (const key of ['a', 'b', 'c']) {
      flags.push((await node.call('POST', '/v1/projects/paged/flags', { body: { key } })).body);
    }
    await node.call('PATCH', `/v1/flags/${flags[0].id}`, { body: { description: 'changed' } });

    const all = (await node.call('GET', '/v1/projects/paged/audit-log')).body as Event[];
    expect(all.map((e) => `${e.action} ${e.resource.key}`)).toEqual([
      'flag.updated a',
      'flag.created c',
      'flag.created b',
      'flag.created a',
      'project.created paged',
    ]);
    const byAction = (await node.call('GET', '/v1/projects/paged/audit-log?action=flag.created'))
      .body as Event[];
    expect(byAction.map((e) => e.resource.key)).toEqual(['c', 'b', 'a']);
    const byType = (await node.call('GET', '/v1/projects/paged/audit-log?resourceType=project'))
      .body as Event[];
    expect(byType.map((e) => e.action)).toEqual(['project.created']);
    const byId = (await node.call('GET', `/v1/projects/paged/audit-log?resourceId=${flags[0].id}`))
      .body as Event[];
    expect(byId.map((e) => e.action)).toEqual(['flag.updated', 'flag.created']);

    const first = await node.call('GET', '/v1/projects/paged/audit-log?limit=2');
    expect(first.body.map((e: Event) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))?.[1] as string;
    const second = await node.call('GET', next);
    expect(second.body.map((e: Event) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
  });

  it('never holds a secret or its hash', async () => {
    const text = (await node.call('GET', '/v1/audit-log?limit=1000')).text;
    expect(text).toContain('api_key.created');
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(12));
    }
    expect(text).not.toMatch(/secretHash|"secret"/);
  });
});
