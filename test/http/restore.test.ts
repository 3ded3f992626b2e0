import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PROJECT = 'restore';

describeEachDatabase('restoring earlier versions (docs/product.md §10 History)', (database) => {
  let server: TestServer;
  let flagId: string;

  const patch = (body: Record<string, unknown>) =>
    server.call('PATCH', `/v1/flags/${flagId}?environment=production`, { body });
  const restore = (version: unknown, headers: Record<string, string> = {}) =>
    server.call('POST', `/v1/flags/${flagId}/restore`, { body: { version }, headers });

  beforeAll(async () => {
    server = await startTestServer(database);
    await server.call('POST', '/v1/projects', { body: { key: PROJECT } });
    const flag = await server.call('POST', `/v1/projects/${PROJECT}/flags`, {
      body: { key: 'banner', name: 'Banner' },
    });
    flagId = flag.body.id;
    await patch({ enabled: true, name: 'Banner v2' }); // version 2
    await patch({ defaultVariant: 'off', name: 'Banner v3' }); // version 3
  });
  afterAll(() => server.close());

  describe('flags', () => {
    it('writes the flag as it was at that version as a new version, and audits it', async () => {
      const res = await restore(2);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ name: 'Banner v2', version: 4 });
      expect(res.body.environments.production).toMatchObject({ enabled: true, defaultVariant: 'on' });
      expect(res.headers.get('etag')).toBe('"4"');
      const events = await server.call('GET', `/v1/projects/${PROJECT}/audit-log?resourceId=${flagId}`);
      expect(events.body[0]).toMatchObject({
        action: 'flag.restored',
        before: { version: 3, name: 'Banner v3' },
        after: { version: 4, name: 'Banner v2' },
      });
      // The restore is itself a version: restoring version 3 brings back what was undone.
      expect((await restore(3)).body).toMatchObject({ name: 'Banner v3', version: 5 });
    });

    it('keeps the current configuration of environments created after that version', async () => {
      await server.call('POST', `/v1/projects/${PROJECT}/environments`, {
        body: { key: 'staging', copyFrom: 'production' },
      });
      const res = await restore(1);
      expect(res.status).toBe(200);
      expect(res.body.environments.production.enabled).toBe(false);
      expect(res.body.environments.staging).toMatchObject({ enabled: true, defaultVariant: 'off' });
    });

    it('answers 404 for a version the audit log does not hold', async () => {
      const res = await restore(99);
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe('The audit log has no version 99 of this flag.');
    });

    it('answers 412 when If-Match names another version', async () => {
      expect((await restore(1, { 'if-match': '"1"' })).status).toBe(412);
    });

    it('refuses a version that no longer validates, with the reason', async () => {
      const segment = await server.call('POST', `/v1/projects/${PROJECT}/segments`, {
        body: { key: 'vips' },
      });
      await patch({ rules: [{ segments: ['vips'], conditions: [], serve: { variant: 'on' } }] });
      const withRule = (await server.call('GET', `/v1/projects/${PROJECT}/flags/banner`)).body.version;
      await patch({ rules: null });
      await server.call('DELETE', `/v1/segments/${segment.body.id}`);
      const res = await restore(withRule);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toBe('no segment "vips" in this project');
    });

    it.each([[{}], [{ version: 0 }], [{ version: 'two' }], [{ version: 1, extra: true }]])(
      'answers %j with problem+json 400',
      async (body) => {
        const res = await server.call('POST', `/v1/flags/${flagId}/restore`, { body });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      },
    );

    it('answers 404 for an unknown flag', async () => {
      const res = await server.call('POST', '/v1/flags/flg_nope/restore', { body: { version: 1 } });
      expect(res.status).toBe(404);
    });
  });

  describe('segments', () => {
    it('writes the segment as it was at that version as a new version', async () => {
      const created = await server.call('POST', `/v1/projects/${PROJECT}/segments`, {
        body: { key: 'beta', included: ['u1'] },
      });
      const id = created.body.id;
      await server.call('PATCH', `/v1/segments/${id}`, { body: { included: ['u1', 'u2'] } });
      const res = await server.call('POST', `/v1/segments/${id}/restore`, { body: { version: 1 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ key: 'beta', included: ['u1'], version: 3 });
    });
  });
});
