import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describeEachDatabase('error statuses (docs/product.md §5) as problem+json', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
  });
  afterAll(() => server.close());

  const expectProblem = (
    res: { status: number; headers: Headers; body: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status,
      code,
      title: expect.any(String),
      detail: expect.any(String),
      type: expect.any(String),
    });
  };

  it('401 with WWW-Authenticate when the Authorization header is missing', async () => {
    const res = await server.call('GET', '/v1/projects/default/flags', { key: null });
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('401 for another scheme and for an unknown key', async () => {
    expectProblem(
      await server.call('GET', '/v1/projects', { key: null, headers: { authorization: 'Basic abc' } }),
      401,
      'unauthorized',
    );
    expectProblem(
      await server.call('GET', '/v1/projects', { key: 'fsk_not-a-real-key' }),
      401,
      'unauthorized',
    );
  });

  it('400 problem+json for a malformed percent-encoding, raised before routing, without echoing the URL', async () => {
    for (const path of [
      '/v1/flags/a%zz?project=default',
      '/v1/flags/%E0%A4%A',
      '/ofrep/v1/evaluate/flags/%',
    ]) {
      const res = await server.call('GET', `${path}${path.includes('?') ? '&' : '?'}api_key=fsk_in-the-url`);
      expectProblem(res, 400, 'validation_failed');
      expect(JSON.stringify(res.body)).not.toContain('fsk_in-the-url');
      expect(res.body.code).not.toBe('FST_ERR_BAD_URL');
    }
  });

  it('431 problem+json for headers over 16 KiB, answered by the HTTP parser before Fastify', async () => {
    const res = await server.call('GET', '/v1/projects', { headers: { 'x-padding': 'a'.repeat(20_000) } });
    expectProblem(res, 431, 'header_too_large');
  });

  it('400 with the field path for an unknown field', async () => {
    const res = await server.call('POST', '/v1/projects/default/flags', {
      body: { key: 'a', colour: 'red' },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toContainEqual({ path: '/colour', message: 'unknown field "colour"' });
  });

  it('400 for a key that breaks the key pattern, naming the field', async () => {
    const res = await server.call('POST', '/v1/projects/default/flags', { body: { key: '-bad key' } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].path).toBe('/key');
  });

  it('400 for a body that is not JSON', async () => {
    expectProblem(
      await server.call('POST', '/v1/projects/default/flags', { body: '{"key": ' }),
      400,
      'validation_failed',
    );
  });

  it('400 for attributes that are not a JSON object', async () => {
    const res = await server.call(
      'GET',
      `/v1/flags/x?project=default&attributes=${encodeURIComponent('[1,2]')}`,
    );
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].path).toBe('querystring:/attributes');
  });

  it('400 for a rule whose regex does not compile, and nothing is written', async () => {
    const res = await server.call('POST', '/v1/projects/default/segments', {
      body: {
        key: 'bad-regex',
        rules: [{ type: 'attribute', attribute: 'email', operator: 'matches', value: '(' }],
      },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].path).toMatch(/^\/rules\/0/);
    const list = await server.call('GET', '/v1/projects/default/segments');
    expect(list.body).toEqual([]);
  });

  it('404 for an unknown project and for an unknown route, and /v2 does not exist', async () => {
    expectProblem(await server.call('GET', '/v1/projects/nope/flags'), 404, 'not_found');
    expectProblem(await server.call('GET', '/v2/projects/default/flags'), 404, 'not_found');
  });

  it('409 for a flag key that already exists, and for concurrent duplicate creates exactly one wins', async () => {
    const body = { key: 'dup' };
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => server.call('POST', '/v1/projects/default/flags', { body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expectProblem(results.find((r) => r.status === 409)!, 409, 'conflict');
  });

  it('412 for a stale If-Match, and the flag is unchanged', async () => {
    const created = await server.call('POST', '/v1/projects/default/flags', { body: { key: 'etagged' } });
    expect(created.headers.get('etag')).toBe('"1"');
    const ok = await server.call('PATCH', `/v1/flags/${created.body.id}`, {
      body: { name: 'Renamed' },
      headers: { 'if-match': '"1"' },
    });
    expect(ok.status).toBe(200);
    const stale = await server.call('PATCH', `/v1/flags/${created.body.id}`, {
      body: { name: 'Lost' },
      headers: { 'if-match': '"1"' },
    });
    expectProblem(stale, 412, 'precondition_failed');
    const current = await server.call('GET', '/v1/projects/default/flags/etagged');
    expect(current.body.name).toBe('Renamed');
    expect(current.body.version).toBe(2);
  });

  it('413 for a body over 1 MiB', async () => {
    const res = await server.call('POST', '/v1/projects/default/flags', {
      body: { key: 'big', description: 'x'.repeat(1024 * 1024 + 10) },
    });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('415 for a content type that is not JSON', async () => {
    const res = await server.call('POST', '/v1/projects/default/flags', {
      body: 'key=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('accepts application/merge-patch+json for PATCH', async () => {
    const created = await server.call('POST', '/v1/projects/default/flags', { body: { key: 'merge' } });
    const res = await server.call('PATCH', `/v1/flags/${created.body.id}`, {
      body: { tags: ['checkout'] },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.tags).toEqual(['checkout']);
  });
});
