import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { createKey, type Harness, setupActor, startHarness } from './support.ts';

describeEachDatabase('API keys and the order of checks', (database) => {
  let node: Harness;
  let alphaId: string;
  let betaId: string;
  beforeAll(async () => {
    node = await startHarness(database);
    alphaId = (await node.services.projects.create(setupActor, { key: 'alpha' })).id;
    betaId = (await node.services.projects.create(setupActor, { key: 'beta' })).id;
    await node.services.flags.create(setupActor, 'alpha', { key: 'exists' });
  });
  afterAll(() => node?.close());

  describe('no key gets more power than its own', () => {
    it('lets a project admin create keys up to its own role and environments', async () => {
      const admin = await createKey(node.services, alphaId, 'admin', ['production']);
      const create = (body: object) =>
        node.call('POST', '/v1/projects/alpha/api-keys', { key: admin.secret, body: { name: 'k', ...body } });
      expect((await create({ role: 'admin', environments: ['production'] })).status).toBe(201);
      expect((await create({ role: 'evaluator', environments: ['production'] })).status).toBe(201);
      const wider = await create({ role: 'viewer' });
      expect([wider.status, wider.body.detail]).toEqual([
        403,
        'A key cannot create a key for environments it has no access to.',
      ]);
      expect((await create({ role: 'viewer', environments: ['development'] })).status).toBe(403);
    });

    it('refuses a higher role than the creator’s, even with an otherwise invalid body', async () => {
      const org = await createKey(node.services, null, 'admin', ['production']);
      const refused = await node.call('POST', '/v1/api-keys', {
        key: org.secret,
        body: { name: 'k', role: 'admin', environments: null, colour: 'red' },
      });
      expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
    });

    it('refuses revoking a key with more power, and organisation-wide keys to project keys', async () => {
      const limited = await createKey(node.services, alphaId, 'admin', ['development']);
      const everywhere = await createKey(node.services, alphaId, 'evaluator');
      const orgKey = await createKey(node.services, null, 'viewer');
      const projectAdmin = await createKey(node.services, alphaId, 'admin');
      /** The status of revoking key `id` with the key whose secret is `by`. */
      const revoke = async (id: string, by: string) =>
        (await node.call('DELETE', `/v1/api-keys/${id}`, { key: by })).status;
      expect(await revoke(everywhere.id, limited.secret)).toBe(403);
      expect(await revoke(orgKey.id, projectAdmin.secret)).toBe(403);
      expect(await revoke(everywhere.id, projectAdmin.secret)).toBe(204);
      // Revoking again changes nothing; an unknown key is a 404.
      expect(await revoke(everywhere.id, projectAdmin.secret)).toBe(204);
      expect((await node.call('DELETE', '/v1/api-keys/key_nothing')).status).toBe(404);
    });

    it('refuses a key naming unknown environments, or expiring in the past', async () => {
      const unknown = await node.call('POST', '/v1/projects/alpha/api-keys', {
        body: { name: 'k', role: 'viewer', environments: ['staging'] },
      });
      expect([unknown.status, unknown.body.errors]).toEqual([
        400,
        [{ path: '/environments/0', message: 'no environment "staging" in this project' }],
      ]);
      const past = await node.call('POST', '/v1/api-keys', {
        body: { name: 'k', role: 'viewer', expiresAt: '2001-01-01T00:00:00Z' },
      });
      expect([past.status, past.body.errors]).toEqual([
        400,
        [{ path: '/expiresAt', message: 'must be in the future' }],
      ]);
    });
  });

  describe('evaluation scope', () => {
    it('makes an organisation-wide key name the project (400), and a project key use its own', async () => {
      const org = await createKey(node.services, null, 'evaluator');
      const unnamed = await node.call('GET', '/v1/flags/exists', { key: org.secret });
      expect([unnamed.status, unnamed.body.errors?.[0]?.path]).toEqual([400, 'querystring:/project']);
      expect((await node.call('POST', '/v1/evaluate', { key: org.secret, body: {} })).status).toBe(400);
      expect((await node.call('GET', '/v1/flags/exists?project=alpha', { key: org.secret })).status).toBe(
        200,
      );
      const own = await createKey(node.services, alphaId, 'evaluator');
      expect((await node.call('GET', '/v1/flags/exists', { key: own.secret })).body.key).toBe('exists');
      expect(
        (await node.call('GET', `/v1/flags/exists?project=${alphaId}`, { key: own.secret })).status,
      ).toBe(200);
      expect((await node.call('GET', '/v1/flags/exists?project=beta', { key: own.secret })).status).toBe(403);
    });

    it('refuses an environment the key is not bound to before asking for the project', async () => {
      const org = await createKey(node.services, null, 'evaluator', ['development']);
      const reply = await node.call('GET', '/v1/flags/exists?environment=production', { key: org.secret });
      expect([reply.status, reply.body.detail]).toEqual([
        403,
        'This API key has no access to the environment "production".',
      ]);
    });
  });

  describe('a key probing another project learns nothing', () => {
    it('gets the same 403 whether the flag, or the project, exists or not', async () => {
      const prober = await createKey(node.services, betaId, 'admin');
      const probe = async (url: string, method = 'GET', body?: unknown) => {
        const reply = await node.call(method, url, { key: prober.secret, body });
        return { status: reply.status, body: reply.body };
      };
      const existing = await probe('/v1/projects/alpha/flags/exists');
      expect(existing.status).toBe(403);
      for (const other of [
        await probe('/v1/projects/alpha/flags/missing'),
        await probe(`/v1/projects/${alphaId}/flags/missing`),
        await probe('/v1/projects/no-such-project/flags/exists'),
        await probe('/v1/flags/exists?project=alpha'),
        await probe('/v1/flags/missing?project=no-such-project'),
        await probe('/v1/projects/alpha/flags', 'POST', { key: 'exists' }),
        await probe('/v1/projects/no-such-project/flags', 'POST', { key: 'exists' }),
      ]) {
        expect(other).toEqual(existing);
      }
    });
  });

  describe('order of checks: 401 → 429 → 403 → 400/404 (docs/product.md §5)', () => {
    it('answers 401 before anything else is looked at', async () => {
      const reply = await node.call('POST', '/v1/projects/no-such/flags', {
        key: 'fsk_wrong',
        body: '{"key":',
      });
      expect([reply.status, reply.headers['www-authenticate'], reply.body.code]).toEqual([
        401,
        'Bearer',
        'unauthorized',
      ]);
      expect(reply.text).not.toContain('fsk_wrong');
    });

    it('answers 403 before a body that is not JSON, of the wrong type, or invalid', async () => {
      const other = await createKey(node.services, betaId, 'admin');
      const viewer = await createKey(node.services, alphaId, 'viewer');
      const cases = [
        { key: other.secret, body: '{"key":', headers: { 'content-type': 'application/json' } },
        {
          key: other.secret,
          body: 'key=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
        { key: viewer.secret, body: { key: '-not a key-', colour: 'red' } },
        { key: viewer.secret, body: '{"key":', headers: { 'content-type': 'application/json' } },
      ];
      for (const call of cases) {
        const reply = await node.call('POST', '/v1/projects/alpha/flags', call);
        expect([reply.status, reply.body.code]).toEqual([403, 'forbidden']);
      }
    });

    it('answers 400 before 404 for a key with access', async () => {
      const reply = await node.call('POST', '/v1/projects/no-such-project/flags', {
        body: { key: 'x', colour: 1 },
      });
      expect(reply.status).toBe(400);
      expect(
        (await node.call('POST', '/v1/projects/no-such-project/flags', { body: { key: 'x' } })).status,
      ).toBe(404);
    });
  });
});
