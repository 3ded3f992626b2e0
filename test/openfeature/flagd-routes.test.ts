import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewFlagdDocument } from '../../src/flagd/validate-flagd-document.ts';
import { describeEachDatabase } from '../support/database.ts';
import type { TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';
import { startServer } from './support/server.ts';
import { createKey, seedVariedProject } from './support/varied-project.ts';

const SAMPLES = join(import.meta.dirname, '../fixtures/flagd-schema/test/flags');
const samples = (kind: 'positive' | 'negative') =>
  readdirSync(join(SAMPLES, kind)).map(
    (file) => [file, readFileSync(join(SAMPLES, kind, file), 'utf8')] as const,
  );

const flagdPath = (environment: string, project = 'default') =>
  `/v1/projects/${project}/environments/${environment}/flagd`;

const DOCUMENT = {
  $schema: 'https://flagd.dev/schema/v0/flags.json',
  metadata: { flagSetId: 'shop' },
  flags: {
    'show-banner': {
      state: 'ENABLED',
      variants: { on: true, off: false },
      defaultVariant: 'off',
      targeting: { if: [{ '==': [{ var: 'country' }, 'NL'] }, 'on', null] },
      metadata: { team: 'web' },
    },
    'header-color': {
      state: 'DISABLED',
      variants: { red: '#f00', blue: '#00f' },
      defaultVariant: 'red',
    },
  },
};

describeEachDatabase('flagd import and export over HTTP (docs/product.md §6)', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(database);
  });
  afterAll(() => server.close());

  const ofrep = (flag: string, context: Record<string, unknown>, environment: string) =>
    server.call('POST', `/ofrep/v1/evaluate/flags/${flag}`, {
      body: { context },
      headers: { 'x-flagstaff-project': 'default', 'x-flagstaff-environment': environment },
    });

  describe('the reference samples', () => {
    it.each(samples('positive'))('accepts %s', async (_, text) => {
      const res = await server.call('POST', flagdPath('development'), { body: text });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.environment).toBe('development');
    });

    it.each(samples('negative'))('refuses %s with 400, naming where and what', async (_, text) => {
      const before = await server.call('GET', '/v1/projects/default/audit-log');
      const res = await server.call('POST', flagdPath('production'), { body: text });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.detail).toMatch(/^The flagd document is not valid: \/\S*: ./);
      expect(res.body.errors.length).toBeGreaterThan(0);
      for (const error of res.body.errors) {
        expect(error.path).toMatch(/^\//);
        expect(error.message.length).toBeGreaterThan(5);
      }
      const after = await server.call('GET', '/v1/projects/default/audit-log');
      expect(after.body.length).toBe(before.body.length);
    });

    it('refuses a body that is not a flagd document at all', async () => {
      for (const body of [[], 'null', { flags: 'none' }]) {
        const res = await server.call('POST', flagdPath('production'), { body });
        expect(res.status).toBe(400);
      }
    });
  });

  describe('importing', () => {
    it('creates the flags in one environment, with an audit event each, served at once', async () => {
      const res = await server.call('POST', flagdPath('staging', 'shop'), { body: DOCUMENT });
      expect(res.status).toBe(404);

      await server.call('POST', '/v1/projects', { body: { key: 'shop' } });
      const imported = await server.call('POST', flagdPath('production', 'shop'), { body: DOCUMENT });
      expect(imported.status).toBe(200);
      expect(imported.body).toEqual({
        environment: 'production',
        created: ['show-banner', 'header-color'],
        updated: [],
        unchanged: [],
        warnings: [],
      });

      const flag = await server.call('GET', '/v1/projects/shop/flags/show-banner');
      expect(flag.body).toMatchObject({
        type: 'boolean',
        metadata: { flagSetId: 'shop', team: 'web' },
        variants: [
          { key: 'on', value: true },
          { key: 'off', value: false },
        ],
      });
      expect(flag.body.environments.production).toMatchObject({ enabled: true, defaultVariant: 'off' });
      expect(flag.body.environments.production.targeting).toEqual(DOCUMENT.flags['show-banner'].targeting);
      expect(flag.body.environments.development.enabled).toBe(false);

      const audit = await server.call('GET', '/v1/projects/shop/audit-log?action=flag.created');
      expect(audit.body.map((e: { resource: { key: string } }) => e.resource.key).sort()).toEqual([
        'header-color',
        'show-banner',
      ]);
      expect(audit.body[0]).toMatchObject({ environment: 'production', actor: { type: 'api_key' } });
      expect(new Set(audit.body.map((e: { requestId: string }) => e.requestId)).size).toBe(1);

      const call = (flagKey: string, context: Record<string, unknown>) =>
        server.call('POST', `/ofrep/v1/evaluate/flags/${flagKey}`, {
          body: { context },
          headers: { 'x-flagstaff-project': 'shop' },
        });
      expect((await call('show-banner', { country: 'NL' })).body).toMatchObject({
        value: true,
        reason: 'TARGETING_MATCH',
      });
      expect((await call('show-banner', { country: 'BE' })).body).toMatchObject({
        value: false,
        reason: 'DEFAULT',
      });
      // flagd's DISABLED: reason disabled and no value.
      expect((await call('header-color', {})).body).toEqual({
        key: 'header-color',
        reason: 'DISABLED',
        metadata: { flagSetId: 'shop' },
      });
    });

    it('importing the same document again changes nothing and records nothing', async () => {
      const before = await server.call('GET', '/v1/projects/shop/audit-log');
      const again = await server.call('POST', flagdPath('production', 'shop'), { body: DOCUMENT });
      expect(again.body).toEqual({
        environment: 'production',
        created: [],
        updated: [],
        unchanged: ['show-banner', 'header-color'],
        warnings: [],
      });
      expect((await server.call('GET', '/v1/projects/shop/audit-log')).body.length).toBe(before.body.length);
    });

    it('updates one environment, leaves the others and merges variants', async () => {
      const document = {
        flags: {
          'header-color': {
            state: 'ENABLED',
            variants: { red: '#ff0000', green: '#0f0' },
            defaultVariant: 'green',
          },
        },
      };
      const res = await server.call('POST', flagdPath('development', 'shop'), { body: document });
      expect(res.body).toMatchObject({ created: [], updated: ['header-color'] });
      const flag = await server.call('GET', '/v1/projects/shop/flags/header-color');
      expect(flag.body.variants).toEqual([
        { key: 'red', value: '#ff0000' },
        { key: 'blue', value: '#00f' },
        { key: 'green', value: '#0f0' },
      ]);
      expect(flag.body.environments.development).toMatchObject({ enabled: true, defaultVariant: 'green' });
      expect(flag.body.environments.production).toMatchObject({ enabled: false, defaultVariant: 'red' });
      const audit = await server.call('GET', '/v1/projects/shop/audit-log?action=flag.updated');
      expect(audit.body[0]).toMatchObject({ environment: 'development', resource: { key: 'header-color' } });
      expect(audit.body[0].before.environments.development.enabled).toBe(false);
    });

    it('is all or nothing: one flag of the wrong type refuses the whole document', async () => {
      const document = {
        flags: {
          brand: { state: 'ENABLED', variants: { a: 'x' }, defaultVariant: 'a' },
          'show-banner': { state: 'ENABLED', variants: { big: 'big' }, defaultVariant: 'big' },
        },
      };
      const res = await server.call('POST', flagdPath('production', 'shop'), { body: document });
      expectValidationFailed(res, {
        path: '/flags/show-banner/variants',
        message: 'flag "show-banner" is a boolean flag; the document\'s variants are string values',
      });
      expect((await server.call('GET', '/v1/projects/shop/flags/brand')).status).toBe(404);
    });

    it('refuses flag keys Flagstaff cannot store', async () => {
      const res = await server.call('POST', flagdPath('production', 'shop'), {
        body: { flags: { 'has space': { state: 'ENABLED', variants: { a: true }, defaultVariant: 'a' } } },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toMatch(/^\/flags\/has space/);
    });
  });

  describe('who may', () => {
    it('an editor imports, a viewer and an evaluator may not; a viewer exports, an evaluator may not', async () => {
      const editor = await createKey(server, { role: 'editor' }, 'shop');
      const viewer = await createKey(server, { role: 'viewer' }, 'shop');
      const evaluator = await createKey(server, { role: 'evaluator' }, 'shop');
      expect(
        (await server.call('POST', flagdPath('production', 'shop'), { body: DOCUMENT, key: editor })).status,
      ).toBe(200);
      for (const key of [viewer, evaluator]) {
        expect(
          (await server.call('POST', flagdPath('production', 'shop'), { body: DOCUMENT, key })).status,
        ).toBe(403);
      }
      expect((await server.call('GET', flagdPath('production', 'shop'), { key: viewer })).status).toBe(200);
      expect((await server.call('GET', flagdPath('production', 'shop'), { key: evaluator })).status).toBe(
        403,
      );
      const other = await createKey(server, { role: 'admin' });
      expect((await server.call('GET', flagdPath('production', 'shop'), { key: other })).status).toBe(403);
    });

    it('a key for some environments updates their configuration but creates no flags', async () => {
      const devEditor = await createKey(server, { role: 'editor', environments: ['development'] }, 'shop');
      const update = {
        flags: {
          'show-banner': {
            state: 'DISABLED',
            variants: { on: true, off: false },
            defaultVariant: 'on',
            metadata: { team: 'web' },
          },
        },
        metadata: { flagSetId: 'shop' },
      };
      const ok = await server.call('POST', flagdPath('development', 'shop'), {
        body: update,
        key: devEditor,
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      const create = {
        flags: { 'brand-new': { state: 'ENABLED', variants: { a: true }, defaultVariant: 'a' } },
      };
      const refused = await server.call('POST', flagdPath('development', 'shop'), {
        body: create,
        key: devEditor,
      });
      expect(refused.status).toBe(403);
      expect(
        (await server.call('POST', flagdPath('production', 'shop'), { body: update, key: devEditor })).status,
      ).toBe(403);
    });
  });

  describe('exporting', () => {
    it('exports native flags as a flagd document that validates, with warnings in a header', async () => {
      await seedVariedProject(server);
      const res = await server.call('GET', flagdPath('production'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reviewFlagdDocument(res.body).errors).toEqual([]);
      expect(res.body.$schema).toBe('https://flagd.dev/schema/v0/flags.json');
      expect(Object.keys(res.body.flags)).not.toContain('retired');
      expect(res.body.flags['new-checkout']).toMatchObject({
        state: 'ENABLED',
        variants: { on: true, off: false },
        defaultVariant: 'off',
        metadata: { team: 'checkout', ticket: 42, experiment: false },
      });
      const warnings = JSON.parse(res.headers.get('flagstaff-export-warnings') ?? '[]');
      expect(warnings).toContainEqual(
        expect.objectContaining({ flag: 'legacy-api', message: expect.stringMatching(/disabled/) }),
      );
    });

    it('an imported document comes back out as it went in', async () => {
      const res = await server.call('GET', flagdPath('production', 'shop'));
      expect(res.body.flags['show-banner']).toEqual({
        state: 'ENABLED',
        variants: { on: true, off: false },
        defaultVariant: 'off',
        targeting: DOCUMENT.flags['show-banner'].targeting,
        metadata: { flagSetId: 'shop', team: 'web' },
      });
      expect(res.headers.get('flagstaff-export-warnings')).toBeNull();
    });

    it('answers an ETag, and 304 to If-None-Match until the environment changes', async () => {
      const first = await server.call('GET', flagdPath('production'));
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await server.call('GET', flagdPath('production'), { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers.get('etag')).toBe(etag);

      const flag = await server.call('GET', '/v1/projects/default/flags/banner-text');
      const patch = { defaultVariant: 'long' };
      expect((await server.call('PATCH', `/v1/flags/${flag.body.id}`, { body: patch })).status).toBe(200);
      const changed = await server.call('GET', flagdPath('production'), {
        headers: { 'if-none-match': etag },
      });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.flags['banner-text'].defaultVariant).toBe('long');
    });

    it('404 for an environment the project lacks', async () => {
      const res = await server.call('GET', flagdPath('nowhere'));
      expect(res.status).toBe(404);
    });
  });

  it('the import is visible over OFREP in its environment only', async () => {
    const doc = {
      flags: { 'fresh-flag': { state: 'ENABLED', variants: { x: 'x', y: 'y' }, defaultVariant: 'y' } },
    };
    expect((await server.call('POST', flagdPath('development'), { body: doc })).status).toBe(200);
    expect((await ofrep('fresh-flag', {}, 'development')).body).toMatchObject({
      value: 'y',
      reason: 'STATIC',
    });
    expect((await ofrep('fresh-flag', {}, 'production')).body).toMatchObject({
      reason: 'DISABLED',
      value: 'x',
    });
  });
});
