import { afterEach, expect, it } from 'vitest';
import type { RateLimitOptions } from '../../src/access/budgets.ts';
import { describeEachDatabase } from '../support/database.ts';
import {
  ADMIN_KEY,
  createKey,
  FakeClock,
  type Harness,
  type Reply,
  setupActor,
  startHarness,
} from './support.ts';

const limitHeaders = (r: Reply) => ({
  limit: r.headers['ratelimit-limit'],
  remaining: r.headers['ratelimit-remaining'],
  reset: r.headers['ratelimit-reset'],
});

describeEachDatabase('rate limits (docs/product.md §5)', (database) => {
  let node: Harness;
  let clock: FakeClock;
  afterEach(() => node?.close());

  const start = async (rateLimits: RateLimitOptions) => {
    clock = new FakeClock();
    node = await startHarness(database, { clock, rateLimits });
    await node.services.flags.create(setupActor, 'default', { key: 'checkout' });
  };

  it('lets a burst through with the RateLimit headers, then answers 429 with Retry-After and a problem', async () => {
    await start({ management: 3, evaluation: 100 });
    const burst = [];
    for (let i = 0; i < 4; i++) burst.push(await node.call('GET', '/v1/projects'));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(burst.map(limitHeaders)).toEqual([
      { limit: '3', remaining: '2', reset: '1' },
      { limit: '3', remaining: '1', reset: '1' },
      { limit: '3', remaining: '0', reset: '1' },
      { limit: '3', remaining: '0', reset: '1' },
    ]);
    const refused = burst[3] as Reply;
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited', title: expect.any(String) });
    expect(refused.body.detail).toMatch(/management rate limit of 3 requests per second/);
  });

  it('refills the bucket as time passes: one token per 1/rate seconds, never more than the burst', async () => {
    await start({ management: 4, evaluation: 100 });
    for (let i = 0; i < 4; i++) await node.call('GET', '/v1/projects');
    expect((await node.call('GET', '/v1/projects')).status).toBe(429);
    clock.advance(250);
    const one = await node.call('GET', '/v1/projects');
    expect([one.status, one.headers['ratelimit-remaining']]).toEqual([200, '0']);
    expect((await node.call('GET', '/v1/projects')).status).toBe(429);
    clock.advance(60_000);
    const full = await node.call('GET', '/v1/projects');
    expect([full.status, full.headers['ratelimit-remaining']]).toEqual([200, '3']);
  });

  it('keeps separate budgets for evaluation and management routes, and for each key', async () => {
    await start({ management: 2, evaluation: 3 });
    const other = await createKey(node.services, null, 'admin');
    await node.call('GET', '/v1/projects');
    await node.call('GET', '/v1/projects');
    expect((await node.call('GET', '/v1/projects')).status).toBe(429);

    const evaluation = await node.call('GET', '/v1/flags/checkout?project=default');
    expect([evaluation.status, limitHeaders(evaluation)]).toEqual([
      200,
      { limit: '3', remaining: '2', reset: '1' },
    ]);
    const elsewhere = await node.call('GET', '/v1/projects', { key: other.secret });
    expect([elsewhere.status, elsewhere.headers['ratelimit-remaining']]).toEqual([200, '1']);
  });

  it('counts every evaluation route, OFREP included, against the one evaluation budget', async () => {
    await start({ management: 100, evaluation: 4 });
    const statuses = [
      (await node.call('GET', '/v1/flags/checkout?project=default')).status,
      (await node.call('POST', '/v1/flags/checkout/evaluate?project=default', { body: {} })).status,
      (await node.call('POST', '/v1/evaluate?project=default', { body: {} })).status,
    ];
    const ofrep = await node.call('POST', '/ofrep/v1/evaluate/flags/checkout', {
      body: { context: { targetingKey: 'u1' } },
      headers: { 'x-flagstaff-project': 'default' },
    });
    const refused = await node.call('POST', '/ofrep/v1/evaluate/flags/checkout', {
      body: { context: { targetingKey: 'u1' } },
      headers: { 'x-flagstaff-project': 'default' },
    });
    expect([...statuses, ofrep.status, refused.status]).toEqual([200, 200, 200, 200, 429]);
    expect(refused.headers['retry-after']).toBe('1');
    expect(limitHeaders(refused)).toEqual({ limit: '4', remaining: '0', reset: '1' });
  });

  it('puts the headers on every response of a limited route, errors included', async () => {
    await start({ management: 10, evaluation: 10 });
    const missing = await node.call('GET', '/v1/flags/nothing-here?project=default');
    expect(missing.status).toBe(404);
    expect(limitHeaders(missing)).toEqual({ limit: '10', remaining: '9', reset: '1' });
    const invalid = await node.call('POST', '/v1/projects/default/flags', { body: { key: 'x', nope: 1 } });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['ratelimit-remaining']).toBe('9');
  });

  it('does not limit a budget set to 0', async () => {
    await start({ management: 0, evaluation: 0 });
    for (let i = 0; i < 30; i++) {
      const reply = await node.call('GET', '/v1/projects');
      expect(reply.status).toBe(200);
      expect(reply.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('answers 429 before 403 and 400: a key over its budget learns nothing more', async () => {
    await start({ management: 1, evaluation: 100 });
    const viewer = await createKey(node.services, null, 'viewer');
    await node.call('GET', '/v1/projects', { key: viewer.secret });
    const reply = await node.call('POST', '/v1/projects', {
      key: viewer.secret,
      body: { key: '-bad', x: 1 },
    });
    expect([reply.status, reply.body.code]).toEqual([429, 'rate_limited']);
  });

  it('slows a flood of failed authentications from one address, while a valid key elsewhere is not slowed', async () => {
    clock = new FakeClock();
    node = await startHarness(database, {
      clock,
      rateLimits: { management: 0, evaluation: 0, failedAuthentication: { burst: 3, perSecond: 1 } },
    });
    const flood = [];
    for (let i = 0; i < 6; i++) {
      flood.push(await node.call('GET', '/v1/projects', { key: `fsk_guess-${i}`, from: '10.0.0.66' }));
    }
    expect(flood.map((r) => r.status)).toEqual([401, 401, 401, 429, 429, 429]);
    expect(flood[0]?.headers['www-authenticate']).toBe('Bearer');
    expect(flood.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0', '0']);
    expect(flood[5]?.headers['retry-after']).toBe('1');
    expect(flood[5]?.body.code).toBe('rate_limited');
    // No Authorization header at all counts as a failure too.
    expect((await node.call('GET', '/v1/projects', { key: null, from: '10.0.0.66' })).status).toBe(429);

    for (let i = 0; i < 20; i++) {
      const valid = await node.call('GET', '/v1/projects', { from: '10.0.0.7' });
      expect(valid.status).toBe(200);
    }
    // From the flooding address, a key not seen lately gets no answer either way...
    const fresh = await createKey(node.services, null, 'viewer');
    expect((await node.call('GET', '/v1/projects', { key: fresh.secret, from: '10.0.0.66' })).status).toBe(
      429,
    );
    // ...but one that authenticated lately (clients behind one proxy share an address) passes.
    expect((await node.call('GET', '/v1/projects', { key: ADMIN_KEY, from: '10.0.0.66' })).status).toBe(200);

    clock.advance(1000);
    expect((await node.call('GET', '/v1/projects', { key: 'fsk_one-more', from: '10.0.0.66' })).status).toBe(
      401,
    );
    expect((await node.call('GET', '/v1/projects', { key: 'fsk_and-again', from: '10.0.0.66' })).status).toBe(
      429,
    );
  });
});
