import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describeEachDatabase('a segment read by project and key, as flags are', (database) => {
  let server: TestServer;
  let segmentId: string;
  beforeAll(async () => {
    server = await startTestServer(database);
    const created = await server.call('POST', '/v1/projects/default/segments', {
      body: { key: 'dutch-users', name: 'Dutch users' },
    });
    expect(created.status).toBe(201);
    segmentId = created.body.id;
  });
  afterAll(() => server.close());

  it('answers the segment with its ETag, by key or by id, and 404 for a key the project lacks', async () => {
    const byKey = await server.call('GET', '/v1/projects/default/segments/dutch-users');
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({ id: segmentId, key: 'dutch-users', name: 'Dutch users' });
    expect(byKey.headers.get('etag')).toBe('"1"');

    const byId = await server.call('GET', `/v1/projects/default/segments/${segmentId}`);
    expect(byId.body.key).toBe('dutch-users');

    const missing = await server.call('GET', '/v1/projects/default/segments/nobody');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('No segment "nobody" in project "default".');
  });

  it('is in the OpenAPI document beside the other segment routes', async () => {
    const doc = await server.call('GET', '/v1/openapi.json', { key: null });
    const operation = doc.body.paths['/v1/projects/{projectId}/segments/{segmentKey}']?.get;
    expect(operation).toMatchObject({ tags: ['Segments'] });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
  });
});
