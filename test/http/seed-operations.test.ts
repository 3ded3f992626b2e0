import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** The brief's six operations, over a real socket, with the brief's request and response shapes. */
describeEachDatabase('the seed API', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
  });
  afterAll(() => server.close());

  let flagId: string;

  it('creates a flag with the seed body and answers 201 with a Location', async () => {
    const res = await server.call('POST', '/v1/projects/default/flags', {
      body: {
        key: 'new-checkout',
        name: 'New checkout',
        type: 'boolean',
        description: 'The redesigned checkout',
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/projects/${res.body.projectId}/flags/new-checkout`);
    expect(res.body).toMatchObject({
      key: 'new-checkout',
      name: 'New checkout',
      type: 'boolean',
      description: 'The redesigned checkout',
    });
    expect(res.body.id).toMatch(/^flg_/);
    flagId = res.body.id;
  });

  it('lists the project flags as a JSON array with id, key, name, type and enabled', async () => {
    const res = await server.call('GET', '/v1/projects/default/flags');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toEqual([
      expect.objectContaining({
        id: flagId,
        key: 'new-checkout',
        name: 'New checkout',
        type: 'boolean',
        enabled: false,
      }),
    ]);
  });

  it('creates a segment with the seed body', async () => {
    const res = await server.call('POST', '/v1/projects/default/segments', {
      body: {
        key: 'dutch-users',
        name: 'Dutch users',
        rules: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      key: 'dutch-users',
      name: 'Dutch users',
      rules: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
    });
    expect(res.headers.get('location')).toBe(`/v1/segments/${res.body.id}`);
  });

  it('lists the project segments', async () => {
    const res = await server.call('GET', '/v1/projects/default/segments');
    expect(res.status).toBe(200);
    expect(res.body.map((s: { key: string }) => s.key)).toEqual(['dutch-users']);
  });

  it('updates a flag with PATCH: switched on in production with a rule on the segment', async () => {
    const res = await server.call('PATCH', `/v1/flags/${flagId}`, {
      body: {
        enabled: true,
        defaultVariant: 'off',
        rules: [{ segments: ['dutch-users'], serve: { variant: 'on' } }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body.environments.production).toMatchObject({ enabled: true, defaultVariant: 'off' });
    expect(res.body.environments.production.rules[0].id).toEqual(expect.any(String));
    expect(res.body.environments.development.enabled).toBe(false);
    const list = await server.call('GET', '/v1/projects/default/flags');
    expect(list.body[0].enabled).toBe(true);
    const dev = await server.call('GET', '/v1/projects/default/flags?environment=development');
    expect(dev.body[0].enabled).toBe(false);
  });

  it('evaluates the flag for a user whose attributes match the segment: reason targeting', async () => {
    const attributes = encodeURIComponent(JSON.stringify({ targetingKey: 'u1', country: 'NL' }));
    const res = await server.call(
      'GET',
      `/v1/flags/new-checkout?project=default&environment=production&attributes=${attributes}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key: 'new-checkout',
      type: 'boolean',
      value: true,
      reason: 'targeting',
      variant: 'on',
    });
  });

  it('evaluates to the default for a user outside the segment, and in production when no environment is named', async () => {
    const attributes = encodeURIComponent(JSON.stringify({ country: 'BE' }));
    const res = await server.call('GET', `/v1/flags/new-checkout?project=default&attributes=${attributes}`);
    expect(res.body).toEqual({
      key: 'new-checkout',
      type: 'boolean',
      value: false,
      reason: 'default',
      variant: 'off',
    });
  });

  it('answers 404 for a flag that does not exist', async () => {
    const res = await server.call('GET', '/v1/flags/no-such-flag?project=default');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'flag_not_found' });
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
