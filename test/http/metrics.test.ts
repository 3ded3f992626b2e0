import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey } from '../openfeature/support/varied-project.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { expectCreated } from '../support/created.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Metric definitions per project (docs/measurement.md): created, listed, read, patched and
// deleted over HTTP, each write audited and announced to webhooks, bad input refused clearly.

describeEachDatabase('metrics: /v1/projects/{p}/metrics', (database) => {
  let server: TestServer;
  let viewer: string;
  beforeAll(async () => {
    server = await startTestServer(database);
    viewer = await createKey(server, { role: 'viewer' });
  });
  afterAll(() => server?.close());

  const admin = (method: string, path: string, body?: unknown) => callAsAdmin(server, method, path, body);
  const create = (body: unknown) => server.call('POST', '/v1/projects/default/metrics', { body });

  it('creates a metric with its defaults, answers it with its address and version, and lists it', async () => {
    const res = await create({ key: 'purchases', event: 'purchase', kind: 'conversion' });
    expectCreated(res, '/v1/projects/default/metrics/purchases');
    expect(res.body).toMatchObject({
      key: 'purchases',
      name: 'purchases',
      description: '',
      event: 'purchase',
      kind: 'conversion',
      window: 72,
      goal: 'increase',
      version: 1,
    });
    await admin('POST', '/v1/projects/default/metrics', {
      key: 'revenue',
      name: 'Revenue',
      event: 'purchase',
      kind: 'sum',
      window: 24,
      goal: 'increase',
    });
    const list = await server.call('GET', '/v1/projects/default/metrics', { key: viewer });
    expect(list.status).toBe(200);
    expect(list.body.map((m: { key: string }) => m.key)).toEqual(['purchases', 'revenue']);
    const one = await server.call('GET', '/v1/projects/default/metrics/revenue', { key: viewer });
    expect(one.body).toMatchObject({ name: 'Revenue', kind: 'sum', window: 24 });
  });

  it('patches a metric under If-Match, null putting a field back to its default', async () => {
    await admin('POST', '/v1/projects/default/metrics', {
      key: 'errors',
      event: 'error',
      kind: 'count',
      goal: 'decrease',
      window: 12,
    });
    const patched = await server.call('PATCH', '/v1/projects/default/metrics/errors', {
      body: { window: null, name: 'Errors seen' },
      headers: { 'if-match': '"1"' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ window: 72, name: 'Errors seen', goal: 'decrease', version: 2 });
    const stale = await server.call('PATCH', '/v1/projects/default/metrics/errors', {
      body: { goal: 'increase' },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(412);
    expect((await admin('GET', '/v1/projects/default/metrics/errors')).goal).toBe('decrease');
  });

  it('deletes a metric; it is gone, and a second delete is a 404', async () => {
    await admin('POST', '/v1/projects/default/metrics', { key: 'gone', event: 'x', kind: 'count' });
    expect((await server.call('DELETE', '/v1/projects/default/metrics/gone')).status).toBe(204);
    expect((await server.call('GET', '/v1/projects/default/metrics/gone')).status).toBe(404);
    const again = await server.call('DELETE', '/v1/projects/default/metrics/gone');
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe('No metric "gone" in project "default".');
  });

  it('refuses bad input with a problem naming the field, and keeps nothing of it', async () => {
    const cases: [unknown, string][] = [
      [{ key: 'k1', event: 'purchase', kind: 'ratio' }, '/kind'],
      [{ key: 'k2', event: 'purchase', kind: 'count', window: 0 }, '/window'],
      [{ key: 'k3', event: 'purchase', kind: 'count', window: -4 }, '/window'],
      [{ key: 'k4', event: 'purchase', kind: 'count', window: 1.5 }, '/window'],
      [{ key: 'k5', kind: 'count' }, '/event'],
      [{ key: 'k6', event: 'bad\nname', kind: 'count' }, '/event'],
      [{ key: 'k7', event: 'purchase', kind: 'count', goal: 'up' }, '/goal'],
      [{ key: 'k8', event: 'purchase', kind: 'count', colour: 'red' }, '/colour'],
      [{ key: '-k9', event: 'purchase', kind: 'count' }, '/key'],
    ];
    for (const [body, path] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(JSON.stringify(res.body.errors), JSON.stringify(body)).toContain(path);
    }
    const keys = (await admin('GET', '/v1/projects/default/metrics')).map((m: { key: string }) => m.key);
    expect(keys.some((k: string) => /^-?k\d$/.test(k))).toBe(false);
    const patch = await server.call('PATCH', '/v1/projects/default/metrics/purchases', {
      body: { window: 0 },
    });
    expect(patch.status).toBe(400);
    const taken = await create({ key: 'purchases', event: 'purchase', kind: 'count' });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toBe('A metric "purchases" already exists in project "default".');
  });

  it('lets viewers read and refuses their writes', async () => {
    const write = await server.call('POST', '/v1/projects/default/metrics', {
      key: viewer,
      body: { key: 'mine', event: 'x', kind: 'count' },
    });
    expect(write.status).toBe(403);
  });

  it('records every write in the audit log and announces it to webhooks', async () => {
    const hook = await admin('POST', '/v1/projects/default/webhooks', {
      url: 'https://203.0.113.10/hook',
      events: ['metric.*'],
    });
    await admin('POST', '/v1/projects/default/metrics', {
      key: 'audited',
      event: 'signup',
      kind: 'conversion',
    });
    await admin('PATCH', '/v1/projects/default/metrics/audited', { window: 48 });
    await server.call('DELETE', '/v1/projects/default/metrics/audited');
    const log = await admin('GET', '/v1/projects/default/audit-log?resourceType=metric');
    const audited = log.filter((e: { resource: { key: string } }) => e.resource.key === 'audited');
    expect(audited.map((e: { action: string }) => e.action)).toEqual([
      'metric.deleted',
      'metric.updated',
      'metric.created',
    ]);
    expect(audited[1]).toMatchObject({ before: { window: 72 }, after: { window: 48 } });
    const deliveries = await admin('GET', `/v1/projects/default/webhooks/${hook.id}/deliveries`);
    expect(deliveries.map((d: { event: string }) => d.event).sort()).toEqual([
      'metric.created',
      'metric.deleted',
      'metric.updated',
    ]);
  });

  it('is in the OpenAPI document, with POST /v1/events', async () => {
    const doc = await server.call('GET', '/v1/openapi.json', { key: null });
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/events',
        '/v1/projects/{projectId}/metrics',
        '/v1/projects/{projectId}/metrics/{metricKey}',
      ]),
    );
  });
});
