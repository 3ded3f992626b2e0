import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';

const PROJECT = 'prereq';

describeEachDatabase('flag prerequisites over HTTP (docs/product.md §10)', (database) => {
  let server: TestServer;
  const ids = new Map<string, string>();
  let evaluator: string;

  const create = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await server.call('POST', `/v1/projects/${PROJECT}/flags`, { body: { key, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.set(key, res.body.id);
  };
  const patch = (key: string, body: Record<string, unknown>, environment = 'production') =>
    server.call('PATCH', `/v1/flags/${ids.get(key)}?environment=${environment}`, { body });
  const ofrep = (key: string, context: Record<string, unknown>) =>
    server.call('POST', `/ofrep/v1/evaluate/flags/${key}`, {
      body: { context },
      key: evaluator,
      headers: { 'x-flagstaff-project': PROJECT },
    });
  const explain = (key: string, attributes: Record<string, unknown>) =>
    server.call('POST', `/v1/projects/${PROJECT}/flags/${key}/explain`, {
      body: { environment: 'production', attributes },
    });

  beforeAll(async () => {
    server = await startTestServer(database);
    await server.call('POST', '/v1/projects', { body: { key: PROJECT } });
    const key = await server.call('POST', `/v1/projects/${PROJECT}/api-keys`, {
      body: { name: 'evaluator', role: 'evaluator' },
    });
    evaluator = key.body.secret;
    await create('platform');
    await create('checkout');
    await create('plan', {
      type: 'string',
      variants: [
        { key: 'free', value: 'free' },
        { key: 'pro', value: 'pro' },
      ],
    });
    await patch('platform', {
      enabled: true,
      defaultVariant: 'off',
      rules: [
        {
          conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
          serve: { variant: 'on' },
        },
      ],
    });
  });
  afterAll(() => server.close());

  describe('writing prerequisites', () => {
    it('stores prerequisites per environment and evaluates them', async () => {
      const res = await patch('checkout', {
        enabled: true,
        prerequisites: [{ flag: 'platform', variants: ['on'] }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.environments.production.prerequisites).toEqual([
        { flag: 'platform', variants: ['on'] },
      ]);
      expect(res.body.environments.development.prerequisites).toBeUndefined();
      expect((await ofrep('checkout', { targetingKey: 'u1', country: 'NL' })).body).toMatchObject({
        value: true,
        reason: 'STATIC',
      });
    });

    it('answers PREREQUISITE_FAILED over OFREP and names the prerequisite in the explanation', async () => {
      expect((await ofrep('checkout', { targetingKey: 'u1', country: 'BE' })).body).toMatchObject({
        key: 'checkout',
        value: false,
        variant: 'off',
        reason: 'PREREQUISITE_FAILED',
      });
      const explained = await explain('checkout', { targetingKey: 'u1', country: 'BE' });
      expect(explained.body).toMatchObject({
        reason: 'prerequisite_failed',
        variant: 'off',
        failedPrerequisite: 'platform',
      });
      expect((await explain('checkout', { country: 'NL' })).body.failedPrerequisite).toBeNull();
    });

    it.each([
      [
        'an unknown flag',
        [{ flag: 'nope', variants: ['on'] }],
        '/environments/production/prerequisites/0/flag',
        /no flag "nope"/,
      ],
      [
        'an unknown variant',
        [{ flag: 'plan', variants: ['gold'] }],
        '/environments/production/prerequisites/0/variants/0',
        /no variant "gold"/,
      ],
      [
        'the flag itself',
        [{ flag: 'checkout', variants: ['on'] }],
        '/environments/production/prerequisites',
        /cycle: checkout → checkout/,
      ],
      [
        'a flag twice',
        [
          { flag: 'platform', variants: ['on'] },
          { flag: 'platform', variants: ['off'] },
        ],
        '/environments/production/prerequisites/1/flag',
        /listed twice/,
      ],
    ])('refuses %s with 400 naming the field', async (_, prerequisites, path, message) => {
      const res = await patch('checkout', { prerequisites });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toContainEqual({ path, message: expect.stringMatching(message) });
    });

    it('refuses a cycle through other flags with 400 naming the whole cycle', async () => {
      await create('a');
      await create('b');
      expect((await patch('a', { prerequisites: [{ flag: 'b', variants: ['on'] }] })).status).toBe(200);
      expect((await patch('b', { prerequisites: [{ flag: 'checkout', variants: ['on'] }] })).status).toBe(
        200,
      );
      const res = await patch('platform', { prerequisites: [{ flag: 'a', variants: ['on'] }] });
      expectValidationFailed(res, {
        path: '/environments/production/prerequisites',
        message: 'prerequisites form a cycle: platform → a → b → checkout → platform',
      });
      // The same chain in another environment has no cycle there.
      expect(
        (await patch('platform', { prerequisites: [{ flag: 'a', variants: ['on'] }] }, 'development')).status,
      ).toBe(200);
    });

    it.each([
      [{ prerequisites: [{ flag: 'platform' }] }],
      [{ prerequisites: [{ flag: 'platform', variants: [] }] }],
      [{ prerequisites: [{ flag: 'platform', variants: ['on'], extra: 1 }] }],
      [{ prerequisites: 'platform' }],
      [{ prerequisites: [{ flag: 42, variants: ['on'] }] }],
    ])('answers malformed prerequisites %j with problem+json 400', async (body) => {
      const res = await patch('checkout', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it('removes prerequisites with null', async () => {
      const flag = await patch('b', { prerequisites: null });
      expect(flag.body.environments.production.prerequisites).toBeUndefined();
    });
  });

  describe('guards', () => {
    it('lists the flags that require a flag, with their environments', async () => {
      const res = await server.call('GET', `/v1/flags/${ids.get('platform')}/dependants`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ key: 'checkout', environments: ['production'] }]);
    });

    it('refuses to delete or archive a flag others require, naming them, with 409', async () => {
      const deleted = await server.call('DELETE', `/v1/flags/${ids.get('platform')}`);
      expect(deleted.status).toBe(409);
      expect(deleted.body.detail).toBe(
        'Flag "platform" cannot be deleted: it is a prerequisite of "checkout".',
      );
      const archived = await patch('platform', { archived: true });
      expect(archived.status).toBe(409);
      expect(archived.body.detail).toMatch(/cannot be archived: it is a prerequisite of "checkout"/);
    });

    it('refuses to remove a variant that a dependant requires', async () => {
      await patch('checkout', { prerequisites: [{ flag: 'plan', variants: ['pro'] }] });
      const res = await server.call('PATCH', `/v1/flags/${ids.get('plan')}`, {
        body: { variants: [{ key: 'free', value: 'free' }] },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual({
        path: '/variants',
        message: 'flag "checkout" requires variant "pro" in production',
      });
    });

    it('deletes a prerequisite once nothing requires it', async () => {
      await patch('checkout', { prerequisites: null });
      await patch('a', { prerequisites: null }, 'production');
      await patch('platform', { prerequisites: null }, 'development');
      const deleted = await server.call('DELETE', `/v1/flags/${ids.get('a')}`);
      expect(deleted.status).toBe(204);
    });
  });

  describe('flagd export', () => {
    const exportFlagd = () => server.call('GET', `/v1/projects/${PROJECT}/environments/production/flagd`);

    it('inlines prerequisites that come to the same for everyone', async () => {
      await patch('plan', { enabled: true, defaultVariant: 'pro' });
      await patch('checkout', { enabled: true, prerequisites: [{ flag: 'plan', variants: ['pro'] }] });
      await create('legacy');
      await patch('legacy', { enabled: true, prerequisites: [{ flag: 'plan', variants: ['free'] }] });
      const res = await exportFlagd();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.flags.checkout).toMatchObject({ state: 'ENABLED', defaultVariant: 'on' });
      expect(res.body.flags.legacy).toMatchObject({ state: 'ENABLED', defaultVariant: 'off' });
      expect(res.body.flags.legacy.targeting).toBeUndefined();
    });

    it('answers 409 naming a flag whose prerequisites depend on the user', async () => {
      await patch('legacy', { prerequisites: [{ flag: 'platform', variants: ['on'] }] });
      const res = await exportFlagd();
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/^Flag "legacy" has prerequisites/);
    });
  });
});
