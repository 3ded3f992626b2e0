import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY, createKey, type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describeEachDatabase("the audit log's resource filter takes a key as well as an id", (database) => {
  let server: TestServer;
  let flagId: string;
  beforeAll(async () => {
    server = await startTestServer(database);
    const flag = await server.call('POST', '/v1/projects/default/flags', { body: { key: 'checkout' } });
    flagId = flag.body.id;
    await server.call('PATCH', `/v1/flags/${flagId}`, { body: { description: 'changed' } });
    await server.call('POST', '/v1/projects/default/segments', { body: { key: 'checkout' } });
    await server.call('POST', '/v1/projects/default/flags', { body: { key: 'other' } });
  });
  afterAll(() => server.close());

  const actions = async (query: string, path = '/v1/projects/default/audit-log') => {
    const res = await server.call('GET', `${path}?${query}`);
    expect(res.status).toBe(200);
    return (res.body as { action: string }[]).map((event) => event.action);
  };

  it("a flag's key finds the flag's events as its id does", async () => {
    expect(await actions('resourceType=flag&resourceId=checkout')).toEqual(['flag.updated', 'flag.created']);
    expect(await actions(`resourceId=${flagId}`)).toEqual(['flag.updated', 'flag.created']);
    expect(await actions('project=default&resourceType=flag&resourceId=checkout', '/v1/audit-log')).toEqual([
      'flag.updated',
      'flag.created',
    ]);
  });

  it('a key shared by a flag and a segment finds both, unless the type narrows it', async () => {
    expect(await actions('resourceId=checkout')).toEqual(['segment.created', 'flag.updated', 'flag.created']);
    expect(await actions('resourceType=segment&resourceId=checkout')).toEqual(['segment.created']);
  });

  it('a key the project lacks gives an empty list, not an error', async () => {
    expect(await actions('resourceId=no-such-flag')).toEqual([]);
  });
});

describeEachDatabase("a flag's history lists the change requests that would change it", (database) => {
  let node: Harness;
  let flagId: string;
  beforeAll(async () => {
    node = await startHarness(database);
    const projectId = (await node.call('GET', '/v1/projects/default', { key: ADMIN_KEY })).body.id;
    const ann = (await createKey(node.services, projectId, 'editor', null, { name: 'ann' })).secret;
    const bob = (await createKey(node.services, projectId, 'editor', null, { name: 'bob' })).secret;
    flagId = (
      await node.call('POST', '/v1/projects/default/flags', { key: ADMIN_KEY, body: { key: 'checkout' } })
    ).body.id;
    await node.call('POST', '/v1/projects/default/flags', { key: ADMIN_KEY, body: { key: 'other' } });
    await node.call('PATCH', '/v1/projects/default/environments/production', {
      key: ADMIN_KEY,
      body: { requiredApprovals: 1 },
    });
    const opened = await node.call('PATCH', `/v1/flags/${flagId}?environment=production`, {
      key: ann,
      body: { enabled: true },
    });
    expect(opened.status).toBe(202);
    const approved = await node.call('POST', `/v1/change-requests/${opened.body.id}/approve`, {
      key: bob,
      body: {},
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  });
  afterAll(() => node?.close());

  it('by key and by id: the request opened, approved and applied, with its author and approver', async () => {
    for (const resourceId of ['checkout', flagId]) {
      const res = await node.call(
        'GET',
        `/v1/projects/default/audit-log?resourceType=flag&resourceId=${resourceId}`,
        {
          key: ADMIN_KEY,
        },
      );
      const events = res.body as {
        action: string;
        actor: { name: string };
        resource: { subjectId?: string };
      }[];
      expect(events.map((e) => e.action)).toEqual([
        'flag.updated',
        'change_request.applied',
        'change_request.approved',
        'change_request.created',
        'flag.created',
      ]);
      expect(events.find((e) => e.action === 'change_request.created')).toMatchObject({
        actor: { name: 'ann' },
        resource: { subjectId: flagId },
      });
      expect(events.find((e) => e.action === 'change_request.approved')?.actor.name).toBe('bob');
    }
  });

  it("another flag's history does not list them", async () => {
    const res = await node.call('GET', '/v1/projects/default/audit-log?resourceId=other', { key: ADMIN_KEY });
    expect((res.body as { action: string }[]).map((e) => e.action)).toEqual(['flag.created']);
  });
});
