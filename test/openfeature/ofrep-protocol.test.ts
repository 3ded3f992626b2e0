import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import type { TestServer } from '../support/server.ts';
import { startServer } from './support/server.ts';
import { createKey, flagId, startVariedServer } from './support/varied-project.ts';

const SINGLE = '/ofrep/v1/evaluate/flags';
const PROJECT = { 'x-flagstaff-project': 'default' };

describeEachDatabase('OFREP over a real socket (docs/product.md §6)', (database) => {
  let server: TestServer;
  let evaluator: string;
  beforeAll(async () => {
    ({ server, key: evaluator } = await startVariedServer(database));
  });
  afterAll(() => server.close());

  const evaluate = (flag: string, context: unknown, headers: Record<string, string> = {}, key = evaluator) =>
    server.call('POST', `${SINGLE}/${flag}`, { body: { context }, key, headers });
  const bulk = (context: unknown, headers: Record<string, string> = {}, key = evaluator) =>
    server.call('POST', SINGLE, { body: { context }, key, headers });

  describe('single flag', () => {
    it('answers key, value, reason, variant and the flag metadata as JSON', async () => {
      const res = await evaluate('new-checkout', { targetingKey: 'u1', country: 'NL' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({
        key: 'new-checkout',
        value: true,
        reason: 'TARGETING_MATCH',
        variant: 'on',
        metadata: { team: 'checkout', ticket: 42, experiment: false },
      });
    });

    it.each([
      ['new-checkout', { targetingKey: 'u1', country: 'BE' }, 'DEFAULT', false],
      ['banner-text', { targetingKey: 'vip-1' }, 'TARGETING_MATCH', 'Hello there'],
      ['theme', { targetingKey: 'u1' }, 'STATIC', { background: '#000', contrast: 2, nested: { ok: true } }],
      ['legacy-api', { targetingKey: 'u1' }, 'DISABLED', false],
      ['email-color', { targetingKey: 'u1', email: 'a@faas.com' }, 'TARGETING_MATCH', 'red'],
      ['retired', { targetingKey: 'u1' }, 'STATIC', true],
    ])('maps the reason of %s for %j to %s', async (flag, context, reason, value) => {
      const res = await evaluate(flag, context);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ key: flag, reason, value });
    });

    it('answers SPLIT with one of the rollout values for a user with a targetingKey', async () => {
      const res = await evaluate('discount', { targetingKey: 'user-7' });
      expect(res.body.reason).toBe('SPLIT');
      expect([10, 0.5]).toContain(res.body.value);
    });

    it('leaves out value and variant when no variant is served, so the provider uses the code default', async () => {
      const disabled = await evaluate('sunset', { targetingKey: 'u1' });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toEqual({ key: 'sunset', reason: 'DISABLED', metadata: {} });
      const noDefault = await evaluate('no-default', { targetingKey: 'u1', country: 'BE' });
      expect(noDefault.body).toEqual({ key: 'no-default', reason: 'DEFAULT', metadata: {} });
    });

    it('404 FLAG_NOT_FOUND for a flag the project lacks', async () => {
      const res = await evaluate('nope', { targetingKey: 'u1' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        key: 'nope',
        errorCode: 'FLAG_NOT_FOUND',
        errorDetails: "Flag 'nope' was not found",
      });
    });

    it('400 PARSE_ERROR for a body that is not JSON', async () => {
      const res = await server.call('POST', `${SINGLE}/theme`, { body: '{"context": ', key: evaluator });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        key: 'theme',
        errorCode: 'PARSE_ERROR',
        errorDetails: expect.any(String),
      });
    });

    it.each([
      ['a context that is not an object', [1, 2]],
      ['a targetingKey that is not a string', { targetingKey: 7 }],
      ['a context over 8 KiB', { targetingKey: 'u', blob: 'x'.repeat(9000) }],
    ])('400 INVALID_CONTEXT for %s', async (_, context) => {
      const res = await evaluate('theme', context);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        key: 'theme',
        errorCode: 'INVALID_CONTEXT',
        errorDetails: expect.any(String),
      });
    });

    it('treats a missing context as the empty one', async () => {
      const res = await server.call('POST', `${SINGLE}/theme`, { body: {}, key: evaluator });
      expect(res.status).toBe(200);
      expect(res.body.reason).toBe('STATIC');
    });

    it('400 TARGETING_KEY_MISSING when a rollout needed the targetingKey the context lacks', async () => {
      const res = await evaluate('discount', { plan: 'pro' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ key: 'discount', errorCode: 'TARGETING_KEY_MISSING' });
      const rule = await evaluate('pro-rollout', { plan: 'pro' });
      expect(rule.body.errorCode).toBe('TARGETING_KEY_MISSING');
    });

    it('serves the default without a targetingKey where none is needed', async () => {
      expect((await evaluate('pro-rollout', { plan: 'free' })).body).toMatchObject({
        reason: 'DEFAULT',
        value: false,
      });
      // Bucketed by another attribute: its absence is not a missing targetingKey.
      expect((await evaluate('by-company', {})).body).toMatchObject({ reason: 'DEFAULT', value: false });
      // JsonLogic keeps flagd's answer: fractional without a targetingKey falls to the default.
      expect((await evaluate('email-color', {})).body).toMatchObject({ reason: 'DEFAULT', value: 'blue' });
    });
  });

  describe('authentication, project and environment', () => {
    it('401 with WWW-Authenticate and an OFREP body without a key or with an unknown one', async () => {
      for (const key of [null, 'fsk_unknown']) {
        const res = await evaluate('theme', {}, {}, key as string);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({
          key: 'theme',
          errorCode: 'GENERAL',
          errorDetails: expect.any(String),
        });
      }
      const bulkRes = await bulk({}, {}, null as unknown as string);
      expect(bulkRes.status).toBe(401);
      expect(bulkRes.body).toEqual({ errorCode: 'GENERAL', errorDetails: expect.any(String) });
    });

    it('403 for a key of another project, without telling whether the flag exists', async () => {
      const other = await server.call('POST', '/v1/projects', { body: { key: 'other' } });
      expect(other.status).toBe(201);
      const otherKey = await createKey(server, { role: 'evaluator' }, 'other');
      for (const flag of ['theme', 'nope']) {
        const res = await evaluate(flag, {}, PROJECT, otherKey);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ key: flag, errorCode: 'GENERAL' });
      }
    });

    it('an organisation-wide key names the project with X-Flagstaff-Project, else 400', async () => {
      // The test server's default key is the organisation-wide admin key.
      const missing = await server.call('POST', `${SINGLE}/theme`, { body: { context: {} } });
      expect(missing.status).toBe(400);
      expect(missing.body.errorDetails).toMatch(/X-Flagstaff-Project/);
      const named = await server.call('POST', `${SINGLE}/theme`, { body: { context: {} }, headers: PROJECT });
      expect(named.body).toMatchObject({ reason: 'STATIC' });
      const unknown = await server.call('POST', `${SINGLE}/theme`, {
        body: { context: {} },
        headers: { 'x-flagstaff-project': 'no-such-project' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ errorCode: 'GENERAL' });
    });

    it('a key bound to exactly one environment evaluates there without a header', async () => {
      const devKey = await createKey(server, { role: 'evaluator', environments: ['development'] });
      const res = await evaluate('new-checkout', { targetingKey: 'u1', country: 'BE' }, {}, devKey);
      expect(res.body).toMatchObject({ value: true, reason: 'STATIC' });
      const refused = await evaluate('new-checkout', {}, { 'x-flagstaff-environment': 'production' }, devKey);
      expect(refused.status).toBe(403);
    });

    it('otherwise X-Flagstaff-Environment picks the environment, and production is the default', async () => {
      const dev = await evaluate(
        'new-checkout',
        { country: 'BE' },
        { 'x-flagstaff-environment': 'development' },
      );
      expect(dev.body).toMatchObject({ value: true, reason: 'STATIC' });
      const prod = await evaluate('new-checkout', { country: 'BE' });
      expect(prod.body).toMatchObject({ value: false, reason: 'DEFAULT' });
      const unknown = await evaluate('new-checkout', {}, { 'x-flagstaff-environment': 'staging' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errorDetails).toMatch(/staging/);
    });
  });

  describe('bulk', () => {
    it('answers every non-archived flag in key order, failures inline', async () => {
      const res = await bulk({ plan: 'pro' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const keys = res.body.flags.map((f: { key: string }) => f.key);
      expect(keys).toEqual([...keys].sort());
      expect(keys).not.toContain('retired');
      expect(res.body.flags).toContainEqual(
        expect.objectContaining({ key: 'discount', errorCode: 'TARGETING_KEY_MISSING' }),
      );
      expect(res.body.flags).toContainEqual({ key: 'sunset', reason: 'DISABLED', metadata: {} });
      expect(res.body.flags).toContainEqual(
        expect.objectContaining({
          key: 'theme',
          reason: 'STATIC',
          variant: 'dark',
          metadata: { owner: 'design' },
        }),
      );
    });

    it('400 without a key for a context that is not an object', async () => {
      const res = await bulk('nope');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errorCode: 'INVALID_CONTEXT', errorDetails: expect.any(String) });
    });

    it('sends an ETag and answers a matching If-None-Match with 304 and no body', async () => {
      const context = { targetingKey: 'etag-user', country: 'NL' };
      const first = await bulk(context);
      const etag = first.headers.get('etag') as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await bulk(context, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers.get('etag')).toBe(etag);
      expect((await bulk(context, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
      expect((await bulk(context, { 'if-none-match': '"other"' })).status).toBe(200);
    });

    it('changes the ETag exactly when a result for the context changes', async () => {
      const context = { targetingKey: 'etag-user-2', country: 'BE' };
      const before = (await bulk(context)).headers.get('etag') as string;
      // A change in another environment changes nothing this context receives.
      const id = await flagId(server, 'banner-text');
      await server.call('PATCH', `/v1/flags/${id}?environment=development`, { body: { enabled: true } });
      expect((await bulk(context, { 'if-none-match': before })).status).toBe(304);
      // Another context gets another ETag.
      expect((await bulk({ ...context, country: 'NL' })).headers.get('etag')).not.toBe(before);
      // A change that reaches this context's results does change it.
      await server.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: 'long' } });
      const after = await bulk(context, { 'if-none-match': before });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(before);
      expect(after.body.flags).toContainEqual(
        expect.objectContaining({ key: 'banner-text', value: 'Hello there' }),
      );
      await server.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: 'short' } });
      expect((await bulk(context, { 'if-none-match': before })).status).toBe(304);
    });
  });
});

describe('OFREP over its rate limit (docs/product.md §5)', () => {
  let server: TestServer;
  let now = 1_750_000_000_000;
  beforeAll(async () => {
    // A clock that stands still: the bucket of 2 never refills, so the third request is over.
    server = await startServer(undefined, {
      accessControl: { rateLimits: { evaluation: 2, management: 0 }, clock: () => now },
    });
  });
  afterAll(() => server.close());

  it('429 with Retry-After, the rate-limit headers and an OFREP body, readable cross-origin', async () => {
    const call = () =>
      server.call('POST', `${SINGLE}/anything`, {
        body: { context: {} },
        headers: { ...PROJECT, origin: 'https://shop.example' },
      });
    expect((await call()).status).toBe(404);
    const second = await call();
    expect(second.headers.get('ratelimit-limit')).toBe('2');
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    const over = await call();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(over.headers.get('content-type')).toMatch(/^application\/json/);
    expect(over.body).toEqual({
      key: 'anything',
      errorCode: 'GENERAL',
      errorDetails: expect.stringMatching(/rate limit/),
    });
    expect(over.headers.get('access-control-allow-origin')).toBe('*');
    const bulkOver = await server.call('POST', SINGLE, { body: { context: {} }, headers: PROJECT });
    expect(bulkOver.status).toBe(429);
    expect(bulkOver.body).toEqual({ errorCode: 'GENERAL', errorDetails: expect.any(String) });
    now += 60_000;
    expect((await call()).status).toBe(404);
  });
});
