import { afterAll, beforeAll, expect, it } from 'vitest';
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
