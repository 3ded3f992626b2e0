import { afterAll, beforeAll, expect, it } from 'vitest';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// The scheduled-change routes name a flag as reading it does, by project and key, as well as by id (issue 38).

describeEachDatabase('scheduled changes of a flag named by its key', (database) => {
  let server: TestServer;
  let flagId: string;

  beforeAll(async () => {
    server = await startTestServer(database);
    await callAsAdmin(server, 'POST', '/v1/projects', { key: 'shop' });
    await callAsAdmin(server, 'POST', '/v1/projects', { key: 'other' });
    flagId = (await callAsAdmin(server, 'POST', '/v1/projects/shop/flags', { key: 'banner' })).id;
  });
  afterAll(() => server.close());

  it('schedules, lists, reads and cancels by key what the id routes show', async () => {
    const scheduled = await server.call('POST', '/v1/projects/shop/flags/banner/scheduled-changes', {
      body: { at: '2999-01-01T00:00:00Z', environment: 'production', patch: { enabled: true } },
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
    expect(scheduled.body).toMatchObject({ flagId, environment: 'production', status: 'pending' });
    const { id } = scheduled.body;
    expect(scheduled.headers.get('location')).toBe(`/v1/flags/${flagId}/scheduled-changes/${id}`);

    const byKey = await server.call('GET', '/v1/projects/shop/flags/banner/scheduled-changes');
    const byId = await server.call('GET', `/v1/flags/${flagId}/scheduled-changes`);
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual(byId.body);
    expect((await server.call('GET', `/v1/projects/shop/flags/banner/scheduled-changes/${id}`)).body).toEqual(
      byId.body[0],
    );

    expect(
      (await server.call('DELETE', `/v1/projects/shop/flags/banner/scheduled-changes/${id}`)).status,
    ).toBe(204);
    expect((await server.call('GET', `/v1/flags/${flagId}/scheduled-changes/${id}`)).body.status).toBe(
      'cancelled',
    );
  });

  it("answers 404 for a key another project's flag has, or none", async () => {
    const elsewhere = await server.call('GET', '/v1/projects/other/flags/banner/scheduled-changes');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.code).toBe('flag_not_found');
  });
});
