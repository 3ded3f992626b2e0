import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { buildTestApp } from '../support/app.ts';
import { describeEachDatabase, type OpenTestDatabase } from '../support/database.ts';
import { ADMIN_KEY, UNLIMITED } from '../support/server.ts';
import { Receiver } from '../support/webhook-receiver.ts';

// "Send test" (docs/decisions/1812): a signed event now, the receiver's answer told to the caller,
// nothing queued, retried or logged as a delivery.

describeEachDatabase('webhook test events', (database) => {
  let opened: OpenTestDatabase;
  /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE=true, so the test receiver on 127.0.0.1 may be reached. */
  let lenient: FastifyInstance;
  /** The default: private addresses refused. */
  let strict: FastifyInstance;
  const receiver = new Receiver();

  const call = async (app: FastifyInstance, method: string, url: string, body?: unknown) => {
    const response = await app.inject({
      method: method as 'POST',
      url,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json() };
  };
  const hooks = '/v1/projects/default/webhooks';

  beforeAll(async () => {
    opened = await database.open();
    await bootstrap(opened.store, ADMIN_KEY);
    ({ app: lenient } = await buildTestApp(opened.store, {
      node: { webhooksAllowPrivate: true },
      accessControl: UNLIMITED,
    }));
    ({ app: strict } = await buildTestApp(opened.store, { accessControl: UNLIMITED }));
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await lenient?.close();
    await strict?.close();
    await opened?.close();
  });

  it('sends a signed webhook.test event now, reports the answer, and logs no delivery', async () => {
    const created = await call(lenient, 'POST', hooks, {
      url: receiver.url,
      events: ['flag.*'],
      active: false,
    });
    expect(created.status).toBe(201);
    receiver.secret = created.body.secret;
    receiver.answer = () => 204;

    const report = await call(lenient, 'POST', `${hooks}/${created.body.id}/test`);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      event: 'webhook.test',
      delivered: true,
      statusCode: 204,
      error: null,
      deliveryId: expect.stringMatching(/^tst_/),
    });
    expect(report.body.durationMs).toBeGreaterThanOrEqual(0);
    // Sent although the webhook is paused: the point is to try it before switching it on.
    const [received] = receiver.received;
    expect(received).toMatchObject({
      event: 'webhook.test',
      delivery: report.body.deliveryId,
      signatureValid: true,
    });
    expect(received?.body).toMatchObject({
      type: 'webhook.test',
      event: { action: 'webhook.test', resource: { type: 'webhook', id: created.body.id } },
    });

    const deliveries = await call(lenient, 'GET', `${hooks}/${created.body.id}/deliveries`);
    expect(deliveries.body).toEqual([]);
    const webhook = await call(lenient, 'GET', `${hooks}/${created.body.id}`);
    expect(webhook.body.backlog).toEqual({ pending: 0, oldestPendingAt: null });
  });

  it("reports a receiver's refusal with its status and the start of its answer", async () => {
    const created = await call(lenient, 'POST', hooks, { url: receiver.url, events: ['flag.*'] });
    receiver.answer = () => 503;
    const report = await call(lenient, 'POST', `${hooks}/${created.body.id}/test`);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ delivered: false, statusCode: 503, error: 'answered 503: ' });
    expect((await call(lenient, 'GET', `${hooks}/${created.body.id}/deliveries`)).body).toEqual([]);
  });

  it('sends nothing to an address the server may not reach, and says why', async () => {
    // Registered while private addresses were allowed; this node refuses them, as the dispatcher would.
    const created = await call(lenient, 'POST', hooks, { url: receiver.url, events: ['flag.*'] });
    const before = receiver.received.length;
    const report = await call(strict, 'POST', `${hooks}/${created.body.id}/test`);
    expect(report.body).toMatchObject({ delivered: false, statusCode: null });
    expect(report.body.error).toMatch(
      /^not sent: the URL resolves to a loopback, private or link-local address/,
    );
    expect(receiver.received.length).toBe(before);
  });

  it('answers 404 for a webhook of no project of the caller', async () => {
    const report = await call(lenient, 'POST', `${hooks}/whk_00000000000000000000000000/test`);
    expect(report.status).toBe(404);
  });
});
