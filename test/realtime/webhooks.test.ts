import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { WebhookService } from '../../src/services/projects/webhook-service.ts';
import type { Services } from '../../src/services/services.ts';
import type { Store } from '../../src/storage/store.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { UNLIMITED } from '../openfeature/support/server.ts';
import { buildTestApp } from '../support/app.ts';
import { callOverHttp } from '../support/call-over-http.ts';
import { describeEachDatabase, type OpenTestDatabase } from '../support/database.ts';
import { collectLines } from '../support/log-lines.ts';
import { ADMIN_KEY } from '../support/server.ts';
import { Receiver } from '../support/webhook-receiver.ts';

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const FAST = { pollMs: 20, firstRetryMs: 50, maxRetryMs: 200, leaseMs: 5_000 };

describeEachDatabase('webhooks', (database) => {
  let opened: OpenTestDatabase;
  let store: Store;
  let services: Services;
  let url: string;
  let close: () => Promise<void>;
  const logLines: string[] = [];
  const log = pino({ level: 'debug' }, collectLines(logLines));
  const dispatchers: WebhookDispatcher[] = [];
  const receivers: Receiver[] = [];

  const node = () => {
    const dispatcher = new WebhookDispatcher(store.webhooks, { log, allowPrivate: true, ...FAST });
    dispatchers.push(dispatcher);
    dispatcher.start();
    return dispatcher;
  };

  const call = (method: string, path: string, body?: unknown) => callOverHttp(url, method, path, body);

  const receiver = async (events: string[] = ['flag.*']) => {
    const r = new Receiver();
    await r.start();
    receivers.push(r);
    const created = await call('POST', '/v1/projects/default/webhooks', { url: r.url, events });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    r.secret = created.body.secret;
    return { receiver: r, webhook: created.body };
  };

  /** The delivery log once nothing in it is pending any more (the last outcome is written after the receiver answers). */
  const deliveriesOnceSettled = async (webhookId: string) => {
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
    let log: any[] = [];
    const read = async () => {
      log = (await call('GET', `/v1/projects/default/webhooks/${webhookId}/deliveries`)).body;
      return log.every((d: { state: string }) => d.state !== 'pending');
    };
    const deadline = Date.now() + 15_000;
    while (!(await read())) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the deliveries to settle');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return log;
  };

  const createFlags = async (prefix: string, count: number) => {
    for (let i = 0; i < count; i++) {
      expect((await call('POST', '/v1/projects/default/flags', { key: `${prefix}-${i}` })).status).toBe(201);
    }
  };

  beforeAll(async () => {
    opened = await database.open();
    store = opened.store;
    await bootstrap(store, ADMIN_KEY);
    const built = await buildTestApp(store, {
      node: { webhooksAllowPrivate: true },
      accessControl: UNLIMITED,
      logger: { level: 'debug', stream: { write: (line: string) => logLines.push(line) } },
    });
    services = built.node.services;
    const { app } = built;
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    close = () => app.close();
  });
  afterAll(async () => {
    for (const dispatcher of dispatchers) await dispatcher.stop();
    for (const r of receivers) await r.stop();
    await close?.();
    await opened?.close();
  });

  it('manages webhooks: the secret is shown once, bad input is a 400, private URLs are refused by default', async () => {
    const created = await call('POST', '/v1/projects/default/webhooks', {
      url: 'https://hooks.example.com/flagstaff',
      events: ['flag.*', 'segment.updated'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ active: true, events: ['flag.*', 'segment.updated'], version: 1 });
    expect(created.body.secret).toMatch(/^whsec_/);
    const listed = await call('GET', '/v1/projects/default/webhooks');
    expect(listed.body).toContainEqual(expect.objectContaining({ id: created.body.id }));
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    const patched = await call('PATCH', `/v1/projects/default/webhooks/${created.body.id}`, {
      active: false,
    });
    expect(patched.body).toMatchObject({ active: false, version: 2 });
    expect(patched.body).not.toHaveProperty('secret');
    expect((await call('POST', '/v1/projects/default/webhooks', { url: 'x', events: ['flag'] })).status).toBe(
      400,
    );
    expect((await call('DELETE', `/v1/projects/default/webhooks/${created.body.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/projects/default/webhooks/${created.body.id}`)).status).toBe(404);

    const strict = new WebhookService(store);
    const admin = { principal: (await services.apiKeys.authenticate(ADMIN_KEY))!, requestId: 'test' };
    for (const privateUrl of [
      'http://127.0.0.1:9/x',
      'http://10.1.2.3/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'http://localhost/x',
    ]) {
      await expect(
        strict.create(admin, 'default', { url: privateUrl, events: ['*'] }),
        privateUrl,
      ).rejects.toMatchObject({
        code: 'validation_failed',
      });
    }
  });

  it('delivers every matching event, signed, in order, and nothing it did not ask for', async () => {
    const { receiver: r, webhook } = await receiver();
    const dispatcher = node();
    await createFlags('ordered', 5);
    await call('POST', '/v1/projects/default/segments', { key: 'not-asked-for', rules: [] });
    await waitFor(() => r.received.length >= 5, 'five deliveries');
    expect(r.keys()).toEqual(['ordered-0', 'ordered-1', 'ordered-2', 'ordered-3', 'ordered-4']);
    expect(r.received.every((x) => x.signatureValid && x.event === 'flag.created')).toBe(true);
    expect(r.received[0]?.body).toMatchObject({ type: 'flag.created', projectId: expect.any(String) });
    const log = await deliveriesOnceSettled(webhook.id);
    expect(log).toHaveLength(5);
    expect(log[0]).toMatchObject({ state: 'delivered', attempts: [{ statusCode: 200, error: null }] });
    await dispatcher.stop();
    await call('PATCH', `/v1/projects/default/webhooks/${webhook.id}`, { active: false });
  });

  it('retries after 500 answers with backoff, and logs every attempt', async () => {
    const { receiver: r, webhook } = await receiver();
    let failures = 2;
    r.answer = () => (failures-- > 0 ? 500 : 200);
    const dispatcher = node();
    await createFlags('retried', 1);
    await waitFor(() => r.received.length >= 3, 'two failures and a success');
    expect(new Set(r.received.map((x) => x.delivery)).size).toBe(1);
    const [logged] = await deliveriesOnceSettled(webhook.id);
    expect(logged.state).toBe('delivered');
    expect(logged.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 200]);

    // Redelivery: the same event again, under a new delivery id.
    const again = await call(
      'POST',
      `/v1/projects/default/webhooks/${webhook.id}/deliveries/${logged.id}/redeliver`,
    );
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ redeliveryOf: logged.id, state: 'pending' });
    await waitFor(() => r.received.some((x) => x.delivery === again.body.id), 'the redelivery');
    expect(r.received.at(-1)?.body).toEqual(r.received[0]?.body);
    await dispatcher.stop();
    await call('PATCH', `/v1/projects/default/webhooks/${webhook.id}`, { active: false });
  });

  it('survives a restart mid-delivery: every event arrives, in order', async () => {
    const { receiver: r, webhook } = await receiver();
    r.answer = () => 'hang';
    const first = node();
    await createFlags('restart', 4);
    await waitFor(() => r.received.length >= 1, 'the first attempt to be in flight');
    await first.stop();
    r.answer = () => 200;
    const second = node();
    await waitFor(() => r.keys().length >= 4, 'every event after the restart');
    expect(r.keys()).toEqual(['restart-0', 'restart-1', 'restart-2', 'restart-3']);
    await second.stop();
    await call('PATCH', `/v1/projects/default/webhooks/${webhook.id}`, { active: false });
  });

  it('two nodes never deliver the same attempt twice, and keep each webhook in order', async () => {
    const a = await receiver();
    const b = await receiver();
    const nodes = [node(), node()];
    await createFlags('shared', 15);
    await waitFor(
      () => a.receiver.received.length >= 15 && b.receiver.received.length >= 15,
      'every delivery',
    );
    for (const { receiver: r } of [a, b]) {
      const deliveries = r.received.map((x) => x.delivery);
      expect(new Set(deliveries).size).toBe(deliveries.length);
      expect(r.keys()).toEqual(Array.from({ length: 15 }, (_, i) => `shared-${i}`));
    }
    for (const n of nodes) await n.stop();
  });

  it('a receiver that never answers delays only its own webhook: another gets each event within 1 s', async () => {
    const hanging = await receiver();
    hanging.receiver.answer = () => 'hang';
    const fast = await receiver();
    const arrivals = new Map<string, number>();
    fast.receiver.answer = (request) => {
      arrivals.set(String(request.headers['flagstaff-delivery']), Date.now());
      return 200;
    };
    const dispatcher = node();
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = fast.receiver.received.length;
      const written = Date.now();
      await createFlags(`beside-a-hang-${i}`, 1);
      await waitFor(() => fast.receiver.received.length > before, `event ${i} at the fast receiver`);
      delays.push((arrivals.get(fast.receiver.received.at(-1)?.delivery ?? '') ?? Infinity) - written);
    }
    // The hanging receiver has its first event and is still holding it (the timeout is 10 s).
    expect(hanging.receiver.received.length).toBe(1);
    expect(Math.max(...delays)).toBeLessThan(1000);
    expect(fast.receiver.keys()).toEqual(['beside-a-hang-0-0', 'beside-a-hang-1-0', 'beside-a-hang-2-0']);
    await dispatcher.stop();
    for (const { webhook } of [hanging, fast]) {
      await call('PATCH', `/v1/projects/default/webhooks/${webhook.id}`, { active: false });
    }
  });

  it("shows each webhook's backlog, and its oldest event's age, in the read API and in /metrics", async () => {
    const { webhook } = await receiver();
    // No dispatcher runs yet: the events wait in the outbox.
    await createFlags('backlogged', 3);
    const read = await call('GET', `/v1/projects/default/webhooks/${webhook.id}`);
    expect(read.body.backlog).toEqual({ pending: 3, oldestPendingAt: expect.any(String) });
    const listed = await call('GET', '/v1/projects/default/webhooks');
    expect(listed.body.find((w: { id: string }) => w.id === webhook.id).backlog.pending).toBe(3);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const series = `{project="default",webhook="${webhook.id}"}`;
    expect(metrics).toContain(`flagstaff_webhook_backlog${series} 3`);
    expect(metrics).toMatch(
      new RegExp(`flagstaff_webhook_backlog_oldest_seconds${series.replace(/[{}]/g, '\\$&')} \\d`),
    );

    const dispatcher = node();
    const deadline = Date.now() + 15_000;
    let after = read;
    while (after.body.backlog.pending > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await call('GET', `/v1/projects/default/webhooks/${webhook.id}`);
    }
    expect(after.body.backlog).toEqual({ pending: 0, oldestPendingAt: null });
    expect(await (await fetch(`${url}/metrics`)).text()).not.toContain(`flagstaff_webhook_backlog${series}`);
    await dispatcher.stop();
    await call('PATCH', `/v1/projects/default/webhooks/${webhook.id}`, { active: false });
  });

  it('logs no webhook secret', () => {
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    for (const r of receivers) expect(log).not.toContain(r.secret);
  });
});
