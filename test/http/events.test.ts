import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../openfeature/support/varied-project.ts';
import { describeEachDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// POST /v1/events (SPEC §13): OpenFeature tracking events from applications, over a real socket
// (fetch) and as curl sends them (inject with a raw body), on both databases.

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const event = (id: string, more: Record<string, unknown> = {}) => ({
  id,
  name: 'checkout',
  context: { targetingKey: `user-${id}`, plan: 'pro' },
  ...more,
});

describeEachDatabase('POST /v1/events', (database) => {
  let server: TestServer;
  let production: string;
  let development: string;
  beforeAll(async () => {
    server = await startTestServer(database);
    production = await createKey(server, { role: 'evaluator', environments: ['production'] });
    development = await createKey(server, { role: 'evaluator', environments: ['development'] });
  });
  afterAll(() => server?.close());

  const send = (events: unknown[], key = production, headers: Record<string, string> = {}) =>
    server.call('POST', '/v1/events', { key, body: { events }, headers });
  const stored = async (environment = 'production') => {
    const projectId = (await server.call('GET', '/v1/projects/default')).body.id;
    return server.store.events.listEvents({ projectId, environment, limit: 100_000 });
  };
  const storedIds = async (environment?: string) => (await stored(environment)).map((e) => e.id).sort();

  it("stores a batch in the key's environment before it answers, every field as sent", async () => {
    const res = await send([
      event('a1', { value: 19.99, details: { currency: 'EUR' }, timestamp: iso(NOW - 60_000) }),
      event('a2'),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ accepted: 2, rejected: [] });
    const [a1] = (await stored()).filter((e) => e.id === 'a1');
    expect(a1).toMatchObject({
      name: 'checkout',
      unit: 'user-a1',
      context: { plan: 'pro' },
      value: 19.99,
      details: { currency: 'EUR' },
      timestamp: NOW - 60_000,
    });
  });

  it('stores a retried batch once: the same ids are kept once and accepted again', async () => {
    const batch = [event('r1'), event('r2'), event('r3')];
    expect((await send(batch)).body).toEqual({ accepted: 3, rejected: [] });
    expect((await send(batch)).body).toEqual({ accepted: 3, rejected: [] });
    expect((await storedIds()).filter((id) => id.startsWith('r'))).toEqual(['r1', 'r2', 'r3']);
  });

  it('refuses each invalid event by its index, with a code and a reason, and keeps the rest', async () => {
    const res = await send([
      event('ok1'),
      { name: 'checkout', context: { plan: 'pro' } },
      event('x2', { name: 'has\nnewline' }),
      event('x3', { timestamp: iso(NOW + 60 * 60_000) }),
      event('x4', { value: 'twelve' }),
      event('x5', { colour: 'red' }),
      event('x6', { name: '$exposure' }),
      event('x7', { timestamp: iso(NOW - 200 * 86_400_000) }),
      event('x8', { timestamp: 'yesterday' }),
      'not an event',
      event('ok2', { name: '$exposure', details: { flag: 'banner', variant: 'on' } }),
    ]);
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(2);
    expect(res.body.rejected.map((r: { index: number; code: string }) => [r.index, r.code])).toEqual([
      [1, 'targeting_key_missing'],
      [2, 'invalid_name'],
      [3, 'future_timestamp'],
      [4, 'invalid_value'],
      [5, 'unknown_field'],
      [6, 'invalid_exposure'],
      [7, 'expired_timestamp'],
      [8, 'invalid_timestamp'],
      [9, 'invalid_event'],
    ]);
    for (const r of res.body.rejected) expect(r.message.length).toBeGreaterThan(10);
    const ids = await storedIds();
    expect(ids).toContain('ok1');
    expect(ids).toContain('ok2');
    expect(ids.some((id) => id.startsWith('x'))).toBe(false);
  });

  it('refuses a batch of 1,001 events and a body over 1 MiB whole, with 413, and keeps none of it', async () => {
    const before = (await stored()).length;
    const many = Array.from({ length: 1001 }, (_, i) => event(`m${i}`));
    const tooMany = await send(many);
    expect(tooMany.status).toBe(413);
    expect(tooMany.body).toMatchObject({ code: 'payload_too_large' });
    expect(tooMany.body.detail).toContain('1000');
    const big = Array.from({ length: 900 }, (_, i) => event(`b${i}`, { details: { pad: 'x'.repeat(1200) } }));
    const tooBig = await send(big);
    expect(tooBig.status).toBe(413);
    expect((await stored()).length).toBe(before);
  });

  it('answers a body that is not a batch with a 400 problem naming the field', async () => {
    const missing = await server.call('POST', '/v1/events', { key: production, body: { event: [] } });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('validation_failed');
    const notJson = await server.call('POST', '/v1/events', { key: production, body: '{"events": [' });
    expect(notJson.status).toBe(400);
  });

  it('takes the environment from X-Flagstaff-Environment, and refuses one the key does not cover', async () => {
    expect((await send([event('d1')], development)).status).toBe(200);
    expect(await storedIds('development')).toContain('d1');
    const other = await send([event('d2')], development, { 'x-flagstaff-environment': 'production' });
    expect(other.status).toBe(403);
    // The organisation-wide admin key names its project and environment by header.
    const admin = await server.call('POST', '/v1/events', {
      body: { events: [event('d3')] },
      headers: { 'x-flagstaff-project': 'default', 'x-flagstaff-environment': 'development' },
    });
    expect(admin.status, JSON.stringify(admin.body)).toBe(200);
    expect(await storedIds('development')).toContain('d3');
    const unnamed = await server.call('POST', '/v1/events', { body: { events: [event('d4')] } });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.detail).toContain('X-Flagstaff-Project');
    expect((await server.call('POST', '/v1/events', { key: null, body: { events: [] } })).status).toBe(401);
  });

  it('answers curl as it sends: a raw JSON body with Content-Type application/json', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { authorization: `Bearer ${production}`, 'content-type': 'application/json' },
      payload: '{"events":[{"name":"sign up","context":{"targetingKey":"curl-user"},"id":"c1"}]}',
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ accepted: 1, rejected: [] });
    expect(await storedIds()).toContain('c1');
  });
});

describe('POST /v1/events under overload', () => {
  it('answers 503 with Retry-After once a node holds its batches, and loses nothing it acknowledged', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startTestServer(undefined, {
      accessControl: { rateLimits: { evaluation: 0, management: 0 } },
    });
    try {
      // The real store, whose writes wait until the test lets them: the node is slower than its clients.
      const insert = server.store.events.insertEvents.bind(server.store.events);
      (server.store.events as { insertEvents: typeof insert }).insertEvents = async (events) => {
        await held;
        return insert(events);
      };
      const limit = 16;
      let answered = 0;
      const batches = Array.from({ length: limit + 4 }, (_, b) =>
        server
          .call('POST', '/v1/events', {
            body: { events: Array.from({ length: 50 }, (_, i) => event(`o${b}-${i}`)) },
            headers: { 'x-flagstaff-project': 'default' },
          })
          .finally(() => answered++),
      );
      // The refused ones answer while the others are still being written.
      expect(await eventually(async () => answered >= 4, 20_000)).toBe(true);
      expect(answered).toBe(4);
      release();
      const answers = await Promise.all(batches);
      const refused = answers.filter((a) => a.status === 503);
      const acknowledged = answers.flatMap((a, b) => (a.status === 200 ? [b] : []));
      expect(refused.length).toBe(4);
      expect(acknowledged.length).toBe(limit);
      for (const r of refused) {
        expect(r.headers.get('retry-after')).toBe('1');
        expect(r.body.code).toBe('overloaded');
      }
      const projectId = (await server.call('GET', '/v1/projects/default')).body.id;
      const kept = await server.store.events.listEvents({
        projectId,
        environment: 'production',
        limit: 10_000,
      });
      const ids = new Set(kept.map((e) => e.id));
      for (const b of acknowledged) for (let i = 0; i < 50; i++) expect(ids.has(`o${b}-${i}`)).toBe(true);
      expect(kept.length).toBe(limit * 50);
      // Places are given back: once the node caught up, a batch is taken again.
      const after = await server.call('POST', '/v1/events', {
        body: { events: [event('after')] },
        headers: { 'x-flagstaff-project': 'default' },
      });
      expect(after.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
