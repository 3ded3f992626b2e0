import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEY_MAX_LENGTH } from '../../src/domain/keys.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describeEachDatabase('keys of the documented maximum length in paths', (database) => {
  let server: TestServer;
  const key = `k${'x'.repeat(KEY_MAX_LENGTH - 2)}9`;
  beforeAll(async () => {
    server = await startTestServer(database);
    const created = await server.call('POST', '/v1/projects/default/flags', { body: { key } });
    expect(created.status).toBe(201);
    const enabled = await server.call('PATCH', `/v1/flags/${created.body.id}?environment=production`, {
      body: { enabled: true },
    });
    expect(enabled.status).toBe(200);
  });
  afterAll(() => server.close());

  it('a 128-character flag key is read by key, evaluated over REST, and over OFREP', async () => {
    expect(key).toHaveLength(128);
    const read = await server.call('GET', `/v1/projects/default/flags/${key}`);
    expect(read.status).toBe(200);
    expect(read.body.key).toBe(key);

    const byGet = await server.call('GET', `/v1/flags/${key}?project=default&environment=production`);
    expect(byGet.status).toBe(200);
    expect(byGet.body).toMatchObject({ key, value: true });

    const byPost = await server.call('POST', `/v1/flags/${key}/evaluate?project=default`, {
      body: { environment: 'production' },
    });
    expect(byPost.status).toBe(200);
    expect(byPost.body).toMatchObject({ key, value: true });

    const ofrep = await server.call('POST', `/ofrep/v1/evaluate/flags/${key}`, {
      headers: { 'x-flagstaff-project': 'default', 'x-flagstaff-environment': 'production' },
      body: { context: { targetingKey: 'u1' } },
    });
    expect(ofrep.status).toBe(200);
    expect(ofrep.body).toMatchObject({ key, value: true });
  });

  it('a path part longer than any key is a clear 400 problem naming the limit', async () => {
    const res = await server.call('GET', `/v1/projects/default/flags/${'y'.repeat(KEY_MAX_LENGTH + 1)}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.detail).toBe(
      `A part of the URL path is longer than ${KEY_MAX_LENGTH} characters; keys are at most ${KEY_MAX_LENGTH}.`,
    );
  });
});
