import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { flagBody } from '../support/requests.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';

describeEachDatabase('management API', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
  });
  afterAll(() => server.close());

  describe('projects and environments', () => {
    it('creates a project with development and production unless told otherwise', async () => {
      const res = await server.call('POST', '/v1/projects', { body: { key: 'shop', name: 'Shop' } });
      expect(res.status).toBe(201);
      expect(res.headers.get('location')).toBe(`/v1/projects/${res.body.id}`);
      const envs = await server.call('GET', '/v1/projects/shop/environments');
      expect(envs.body.map((e: { key: string }) => e.key)).toEqual(['development', 'production']);
      const custom = await server.call('POST', '/v1/projects', {
        body: { key: 'custom', environments: [{ key: 'staging' }, { key: 'live', name: 'Live' }] },
      });
      expect(custom.status).toBe(201);
      const customEnvs = await server.call('GET', `/v1/projects/${custom.body.id}/environments`);
      expect(customEnvs.body.map((e: { key: string; name: string }) => [e.key, e.name])).toEqual([
        ['staging', 'staging'],
        ['live', 'Live'],
      ]);
    });

    it('accepts the project id wherever the key is accepted', async () => {
      const byKey = await server.call('GET', '/v1/projects/shop');
      const byId = await server.call('GET', `/v1/projects/${byKey.body.id}`);
      expect(byId.body).toEqual(byKey.body);
      expect(byId.headers.get('etag')).toBe('"1"');
    });

    it('refuses a project key that already exists with 409', async () => {
      const res = await server.call('POST', '/v1/projects', { body: { key: 'shop' } });
      expect(res.status).toBe(409);
    });

    it('starts a new environment with every flag disabled, or as a copy of another', async () => {
      const flag = await server.call('POST', '/v1/projects/shop/flags', { body: { key: 'banner' } });
      await server.call('PATCH', `/v1/flags/${flag.body.id}?environment=production`, {
        body: { enabled: true, defaultVariant: 'off' },
      });
      const fresh = await server.call('POST', '/v1/projects/shop/environments', { body: { key: 'qa' } });
      expect(fresh.status).toBe(201);
      const copy = await server.call('POST', '/v1/projects/shop/environments', {
        body: { key: 'staging', copyFrom: 'production' },
      });
      expect(copy.status).toBe(201);
      const banner = await server.call('GET', '/v1/projects/shop/flags/banner');
      expect(banner.body.environments.qa).toMatchObject({
        enabled: false,
        offVariant: 'off',
        defaultVariant: 'on',
      });
      expect(banner.body.environments.staging).toMatchObject({ enabled: true, defaultVariant: 'off' });
    });

    it('marks production protected unless told otherwise, and changes that mark', async () => {
      const envs = await server.call('GET', '/v1/projects/shop/environments');
      expect(envs.body.map((e: { key: string; protected: boolean }) => [e.key, e.protected])).toEqual([
        ['development', false],
        ['production', true],
        ['qa', false],
        ['staging', false],
      ]);
      const guarded = await server.call('POST', '/v1/projects/shop/environments', {
        body: { key: 'eu-live', protected: true },
      });
      expect(guarded.body.protected).toBe(true);
      const unguarded = await server.call('PATCH', '/v1/projects/shop/environments/eu-live', {
        body: { protected: false },
      });
      expect(unguarded.body).toMatchObject({ protected: false, version: 2 });
      expect((await server.call('DELETE', '/v1/projects/shop/environments/eu-live')).status).toBe(204);
    });

    it('refuses copyFrom naming an unknown environment', async () => {
      const res = await server.call('POST', '/v1/projects/shop/environments', {
        body: { key: 'x', copyFrom: 'nope' },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('/copyFrom');
    });

    it('renames an environment and deletes all but the last one (409)', async () => {
      const renamed = await server.call('PATCH', '/v1/projects/custom/environments/staging', {
        body: { name: 'Staging' },
      });
      expect(renamed.body).toMatchObject({ name: 'Staging', version: 2 });
      expect((await server.call('DELETE', '/v1/projects/custom/environments/staging')).status).toBe(204);
      const last = await server.call('DELETE', '/v1/projects/custom/environments/live');
      expect(last.status).toBe(409);
      expect(last.body.code).toBe('conflict');
    });

    it('evaluates by project key in a project recreated under the key of a deleted one', async () => {
      await server.call('POST', '/v1/projects', { body: { key: 'reborn' } });
      const flag = await server.call('POST', '/v1/projects/reborn/flags', { body: { key: 'f' } });
      expect((await server.call('GET', '/v1/flags/f?project=reborn')).body.reason).toBe('disabled');
      expect((await server.call('DELETE', '/v1/projects/reborn')).status).toBe(204);
      await server.call('POST', '/v1/projects', { body: { key: 'reborn' } });
      const again = await server.call('POST', '/v1/projects/reborn/flags', { body: { key: 'f' } });
      expect(again.body.id).not.toBe(flag.body.id);
      await server.call('PATCH', `/v1/flags/${again.body.id}`, { body: { enabled: true } });
      const res = await server.call('GET', '/v1/flags/f?project=reborn');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ value: true, reason: 'static' });
    });

    it('deletes a project', async () => {
      expect((await server.call('DELETE', '/v1/projects/custom')).status).toBe(204);
      expect((await server.call('GET', '/v1/projects/custom')).status).toBe(404);
    });
  });

  describe('flags', () => {
    it('creates flags of every type, checking variant values against the type', async () => {
      const string = await server.call('POST', '/v1/projects/shop/flags', {
        body: flagBody('theme', 'string', { light: 'light', dark: 'dark' }),
      });
      expect(string.status).toBe(201);
      expect(string.body.environments.production).toMatchObject({
        enabled: false,
        offVariant: 'light',
        defaultVariant: 'light',
      });
      const number = await server.call('POST', '/v1/projects/shop/flags', {
        body: flagBody('limit', 'number', { low: 10, high: 100.5 }),
      });
      expect(number.status).toBe(201);
      const object = await server.call('POST', '/v1/projects/shop/flags', {
        body: {
          key: 'layout',
          type: 'object',
          variants: [{ key: 'a', value: { columns: 2, items: ['x'] } }],
        },
      });
      expect(object.status).toBe(201);
      const wrong = await server.call('POST', '/v1/projects/shop/flags', {
        body: { key: 'wrong', type: 'number', variants: [{ key: 'a', value: '10' }] },
      });
      expectValidationFailed(wrong, {
        path: '/variants/0/value',
        message: expect.stringContaining('number'),
      });
      const missing = await server.call('POST', '/v1/projects/shop/flags', {
        body: { key: 'nov', type: 'string' },
      });
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].path).toBe('/variants');
    });

    it('a boolean flag gets the variants on and off without being asked; name defaults to the key', async () => {
      const res = await server.call('POST', '/v1/projects/shop/flags', { body: { key: 'plain' } });
      expect(res.body).toMatchObject({
        name: 'plain',
        type: 'boolean',
        variants: [
          { key: 'on', value: true },
          { key: 'off', value: false },
        ],
      });
    });

    it('refuses changing the type', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/plain');
      const res = await server.call('PATCH', `/v1/flags/${flag.body.id}`, { body: { type: 'string' } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('/type');
    });

    it('patches several environments at once with environments: {…}', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/theme');
      const res = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: {
          environments: {
            development: { enabled: true, defaultVariant: 'dark' },
            production: { targets: [{ variant: 'dark', values: ['u1'] }] },
          },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.environments.development).toMatchObject({ enabled: true, defaultVariant: 'dark' });
      expect(res.body.environments.production.targets).toEqual([{ variant: 'dark', values: ['u1'] }]);
    });

    it('keeps a rule id across updates that send it back', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/theme');
      const first = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: { rules: [{ matchAll: true, serve: { variant: 'dark' } }] },
      });
      const rule = first.body.environments.production.rules[0];
      const second = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: { rules: [{ ...rule, description: 'everyone' }] },
      });
      expect(second.body.environments.production.rules[0]).toMatchObject({
        id: rule.id,
        description: 'everyone',
      });
    });

    it('refuses a rule naming an unknown segment or variant, and one with both or neither serve', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/theme');
      const res = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: { rules: [{ segments: ['ghosts'], serve: { variant: 'neon' } }, { serve: {} }] },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          { path: '/environments/production/rules/0/segments/0', message: expect.stringContaining('ghosts') },
          {
            path: '/environments/production/rules/0/serve/variant',
            message: expect.stringContaining('neon'),
          },
          { path: '/environments/production/rules/1/serve', message: expect.any(String) },
        ]),
      );
    });

    it('refuses a rule with no segments and no conditions unless it says "matchAll": true', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/theme');
      const empty = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: { rules: [{ segments: [], conditions: [], serve: { variant: 'dark' } }] },
      });
      expectValidationFailed(empty, {
        path: '/environments/production/rules/0/segments',
        message: expect.stringContaining('"matchAll": true'),
      });
      const contradictory = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: { rules: [{ matchAll: true, segments: ['nobody'], serve: { variant: 'dark' } }] },
      });
      expect(contradictory.status).toBe(400);
      expect(contradictory.body.errors).toContainEqual({
        path: '/environments/production/rules/0/matchAll',
        message: expect.stringContaining('no segments or conditions'),
      });
      const everyone = await server.call('PATCH', `/v1/flags/${flag.body.id}`, {
        body: { enabled: true, rules: [{ matchAll: true, serve: { variant: 'dark' } }] },
      });
      expect(everyone.status).toBe(200);
      expect(everyone.body.environments.production.rules[0]).toMatchObject({ matchAll: true, segments: [] });
    });

    it('answers 404 for a PATCH to an unknown environment', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/theme');
      const res = await server.call('PATCH', `/v1/flags/${flag.body.id}?environment=mars`, {
        body: { enabled: true },
      });
      expect(res.status).toBe(404);
    });

    it('filters by tag, text and archived, and pages with Link rel="next"', async () => {
      for (let i = 0; i < 5; i++) {
        await server.call('POST', '/v1/projects/shop/flags', {
          body: { key: `page-${i}`, tags: i % 2 ? ['odd'] : [] },
        });
      }
      const odd = await server.call('GET', '/v1/projects/shop/flags?tag=odd');
      expect(odd.body.map((f: { key: string }) => f.key)).toEqual(['page-1', 'page-3']);
      const text = await server.call('GET', '/v1/projects/shop/flags?q=PAGE-4');
      expect(text.body.map((f: { key: string }) => f.key)).toEqual(['page-4']);
      const keys: string[] = [];
      let next: string | null = '/v1/projects/shop/flags?q=page&limit=2';
      while (next) {
        const page = await server.call('GET', next);
        keys.push(...page.body.map((f: { key: string }) => f.key));
        next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1] ?? null;
      }
      expect(keys).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
      const flag = await server.call('GET', '/v1/projects/shop/flags/page-0');
      await server.call('PATCH', `/v1/flags/${flag.body.id}`, { body: { archived: true } });
      const archived = await server.call('GET', '/v1/projects/shop/flags?archived=true');
      expect(archived.body.map((f: { key: string }) => f.key)).toEqual(['page-0']);
    });

    it('deletes a flag', async () => {
      const flag = await server.call('GET', '/v1/projects/shop/flags/page-4');
      expect((await server.call('DELETE', `/v1/flags/${flag.body.id}`)).status).toBe(204);
      expect((await server.call('GET', '/v1/projects/shop/flags/page-4')).status).toBe(404);
    });
  });

  describe('segments', () => {
    it('validates every operator at write time', async () => {
      const bad = [
        { type: 'attribute', attribute: 'plan', operator: 'in', value: 'x' },
        { type: 'attribute', attribute: 'version', operator: 'semver_gt', value: 'not-a-version' },
        { type: 'attribute', attribute: 'age', operator: 'gt', value: 'old' },
        { type: 'attribute', attribute: 'at', operator: 'before', value: 'yesterday' },
        { type: 'attribute', attribute: 'x', operator: 'exists', value: 'y' },
      ];
      for (const rule of bad) {
        const res = await server.call('POST', '/v1/projects/shop/segments', {
          body: { key: 'bad', rules: [rule] },
        });
        expect(res.status, JSON.stringify(rule)).toBe(400);
      }
      const unknownOperator = await server.call('POST', '/v1/projects/shop/segments', {
        body: {
          key: 'bad',
          rules: [{ type: 'attribute', attribute: 'a', operator: 'resembles', value: 'b' }],
        },
      });
      expect(unknownOperator.status).toBe(400);
      expect(unknownOperator.body.errors[0].path).toBe('/rules/0/operator');
    });

    it('says which flags use a segment, and in which environments', async () => {
      const segment = await server.call('POST', '/v1/projects/shop/segments', { body: { key: 'testers' } });
      const flag = await server.call('POST', '/v1/projects/shop/flags', { body: { key: 'tested' } });
      await server.call('PATCH', `/v1/flags/${flag.body.id}?environment=development`, {
        body: { rules: [{ segments: ['testers'], serve: { variant: 'on' } }] },
      });
      const usedBy = await server.call('GET', `/v1/segments/${segment.body.id}/used-by`);
      expect(usedBy.status).toBe(200);
      expect(usedBy.body).toEqual({
        flags: [{ id: flag.body.id, key: 'tested', name: 'tested', environments: ['development'] }],
        segments: [],
      });
      expect((await server.call('GET', '/v1/segments/seg_nope/used-by')).status).toBe(404);
      await server.call('DELETE', `/v1/flags/${flag.body.id}`);
      await server.call('DELETE', `/v1/segments/${segment.body.id}`);
    });

    it('refuses segment rules that form a cycle', async () => {
      const a = await server.call('POST', '/v1/projects/shop/segments', { body: { key: 'a' } });
      await server.call('POST', '/v1/projects/shop/segments', {
        body: { key: 'b', rules: [{ type: 'segment', segment: 'a' }] },
      });
      const cycle = await server.call('PATCH', `/v1/segments/${a.body.id}`, {
        body: { rules: [{ type: 'segment', segment: 'b' }] },
      });
      expect(cycle.status).toBe(400);
      expect(cycle.body.errors[0].message).toMatch(/cycle/);
    });

    it('refuses deleting a segment in use with 409, and deletes it once unused', async () => {
      const a = await server.call('GET', '/v1/projects/shop/segments');
      const segA = a.body.find((s: { key: string }) => s.key === 'a');
      const segB = a.body.find((s: { key: string }) => s.key === 'b');
      const inUse = await server.call('DELETE', `/v1/segments/${segA.id}`);
      expect(inUse.status).toBe(409);
      expect(inUse.body.detail).toContain('segment "b"');
      const usedBy = await server.call('GET', `/v1/segments/${segA.id}/used-by`);
      expect(usedBy.body).toEqual({ flags: [], segments: [{ id: segB.id, key: 'b', name: 'b' }] });
      expect((await server.call('DELETE', `/v1/segments/${segB.id}`)).status).toBe(204);
      expect((await server.call('DELETE', `/v1/segments/${segA.id}`)).status).toBe(204);
    });
  });

  it('reads, changes and deletes a flag named by its project and key, or by its id there', async () => {
    const created = await server.call('POST', '/v1/projects/default/flags', { body: { key: 'by-key' } });
    const byKey = await server.call('PATCH', '/v1/projects/default/flags/by-key?environment=production', {
      body: { enabled: true },
    });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({ id: created.body.id, version: 2 });
    expect(byKey.body.environments.production.enabled).toBe(true);

    const byId = await server.call('PATCH', `/v1/projects/default/flags/${created.body.id}`, {
      body: { description: 'named by id' },
      headers: { 'if-match': '"2"' },
    });
    expect(byId.status).toBe(200);
    expect((await server.call('GET', `/v1/projects/default/flags/${created.body.id}`)).body.description).toBe(
      'named by id',
    );

    // Another project's flag is not found through this project, by key or by id.
    await server.call('POST', '/v1/projects', { body: { key: 'other' } });
    const other = await server.call('POST', '/v1/projects/other/flags', { body: { key: 'elsewhere' } });
    expect((await server.call('PATCH', '/v1/projects/default/flags/elsewhere', { body: {} })).status).toBe(
      404,
    );
    expect((await server.call('DELETE', `/v1/projects/default/flags/${other.body.id}`)).status).toBe(404);

    expect((await server.call('DELETE', '/v1/projects/default/flags/by-key')).status).toBe(204);
    expect((await server.call('GET', '/v1/projects/default/flags/by-key')).status).toBe(404);
  });

  it('serves the OpenAPI document and the API reference page', async () => {
    const doc = await server.call('GET', '/v1/openapi.json', { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/v1/flags/{flagKey}', '/v1/projects/{projectId}/flags']),
    );
    const page = await fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>Flagstaff API reference</title>');
    expect(html).toContain('theme/favicon.svg');
    const initializer = await (await fetch(`${server.url}/docs/static/swagger-initializer.js`)).text();
    expect(initializer).toContain('data:image/svg+xml;base64,'); // the project's logo, not Swagger's
  });

  it("serves one OpenAPI document: the reference page's copies redirect to it", async () => {
    for (const copy of ['/docs/json', '/docs/yaml']) {
      const res = await fetch(`${server.url}${copy}`, { redirect: 'manual' });
      expect(res.status, copy).toBe(308);
      expect(res.headers.get('location'), copy).toBe('/v1/openapi.json');
    }
    const followed = await fetch(`${server.url}/docs/json`);
    expect(followed.url).toBe(`${server.url}/v1/openapi.json`);
    expect((await followed.json()).info.title).toBe('Flagstaff API');
  });

  it('answers /healthz and /readyz', async () => {
    expect((await server.call('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await server.call('GET', '/readyz', { key: null })).status).toBe(200);
  });
});
