import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/domain/audit-event.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { WebhookService } from '../../src/services/projects/webhook-service.ts';
import type { Services } from '../../src/services/services.ts';
import type { Store } from '../../src/storage/store.ts';
import { SLACK_LIMITS, type SlackMessage, slackMessage } from '../../src/webhooks/slack-message.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { createKey, setupActor } from '../access/support.ts';
import { buildTestApp } from '../support/app.ts';
import { callOverHttp } from '../support/call-over-http.ts';
import { describeEachDatabase, type OpenTestDatabase } from '../support/database.ts';
import { ADMIN_KEY, UNLIMITED } from '../support/server.ts';
import { Receiver } from '../support/webhook-receiver.ts';

/**
 * Slack webhooks (issue 39): every event a team follows in its channel as a Block Kit message,
 * short, with a link to the dashboard, within Block Kit's limits; a change request's with a
 * button to review and approve it. The address guard applies as to every webhook.
 */

/** Block Kit's structure as Slack checks it: what Slack would refuse (invalid_blocks) fails here. */
function expectValidBlockKit(message: SlackMessage): void {
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.blocks.length).toBeGreaterThan(0);
  expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  for (const block of message.blocks) {
    if (block.type === 'header') {
      expect(block.text.type).toBe('plain_text');
      expect(block.text.text.length).toBeGreaterThan(0);
      expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
    } else if (block.type === 'section') {
      expect(block.text.type).toBe('mrkdwn');
      expect(block.text.text.length).toBeGreaterThan(0);
      expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    } else if (block.type === 'context') {
      expect(block.elements.length).toBeGreaterThan(0);
      expect(block.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
      for (const element of block.elements)
        expect(element.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    } else if (block.type === 'actions') {
      expect(block.elements.length).toBeGreaterThan(0);
      for (const element of block.elements) {
        expect(element.text.text.length).toBeLessThanOrEqual(75); // a button's text
        expect(element.url.length).toBeLessThanOrEqual(3000);
        expect(() => new URL(element.url)).not.toThrow();
      }
    } else {
      throw new Error(`unexpected block ${JSON.stringify(block)}`);
    }
  }
}

const event = (
  action: string,
  resource: AuditEvent['resource'],
  extra: Partial<AuditEvent> = {},
): AuditEvent => ({
  id: 'evt_1',
  at: '2026-12-03T09:00:00.000Z',
  actor: { type: 'api_key', id: 'key_1', name: 'CI <deploy> & co' },
  action,
  resource,
  before: null,
  after: null,
  requestId: 'req_1',
  ...extra,
});

const DASHBOARD = 'https://flags.example.com';

/** One event of every kind a Slack channel is told of. */
const EVENTS: readonly AuditEvent[] = [
  event('flag.created', { type: 'flag', id: 'flg_1', key: 'new-checkout' }),
  event(
    'flag.updated',
    { type: 'flag', id: 'flg_1', key: 'new-checkout' },
    {
      environment: 'production',
      before: { enabled: false, version: 1 },
      after: { enabled: true, version: 2 },
    },
  ),
  event('flag.deleted', { type: 'flag', id: 'flg_1', key: 'new-checkout' }),
  event(
    'change_request.created',
    { type: 'change_request', id: 'chr_1', key: null },
    { environment: 'production' },
  ),
  event('change_request.approved', { type: 'change_request', id: 'chr_1', key: null }),
  event('change_request.applied', { type: 'change_request', id: 'chr_1', key: null }),
  event(
    'release.started',
    { type: 'release_plan', id: 'rpl_1', key: null },
    { after: { flag: 'new-checkout' } },
  ),
  event(
    'release.progressed',
    { type: 'release_plan', id: 'rpl_1', key: null },
    { after: { flag: 'new-checkout' } },
  ),
  event(
    'release.rolled_back',
    { type: 'release_plan', id: 'rpl_1', key: null },
    { after: { flag: 'new-checkout' } },
  ),
  event('experiment.started', { type: 'experiment', id: 'exp_1', key: 'checkout-test' }),
  event('experiment.stopped', { type: 'experiment', id: 'exp_1', key: 'checkout-test' }),
  event('webhook.test', { type: 'webhook', id: 'whk_1', key: null }),
  // The longest a key may be, and a change of many fields: still within the limits.
  event(
    'flag.updated',
    { type: 'flag', id: 'flg_2', key: 'k'.repeat(128) },
    {
      before: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`field-${i}-${'x'.repeat(20)}`, 1])),
      after: {},
    },
  ),
];

describe('Slack messages: Block Kit structure', () => {
  it.each(EVENTS.map((e) => [e.action, e] as const))(
    '%s is valid Block Kit, with a dashboard link',
    (_, e) => {
      const message = slackMessage('prj_1', e, DASHBOARD);
      expectValidBlockKit(message);
      const links = message.blocks.flatMap((b) => (b.type === 'actions' ? b.elements.map((x) => x.url) : []));
      expect(links).toHaveLength(1);
      expect(links[0]).toMatch(/^https:\/\/flags\.example\.com\/projects\/prj_1\//);
      // Slack's three characters are escaped; the actor is named.
      const section = message.blocks.find((b) => b.type === 'section');
      expect(JSON.stringify(section)).toContain('CI &lt;deploy&gt; &amp; co');
    },
  );

  it('a change request asks for review, with an approve button to that request', () => {
    const message = slackMessage('prj_1', EVENTS[3] as AuditEvent, DASHBOARD);
    const actions = message.blocks.find((b) => b.type === 'actions');
    expect(actions).toMatchObject({
      elements: [
        {
          text: { text: 'Review and approve' },
          url: `${DASHBOARD}/projects/prj_1/change-requests?request=chr_1`,
        },
      ],
    });
  });

  it('an update names the fields it changed', () => {
    const text = JSON.stringify(slackMessage('prj_1', EVENTS[1] as AuditEvent, DASHBOARD));
    expect(text).toContain('Changed: `enabled`');
    expect(text).toContain('*new-checkout* in *production*');
  });

  it('without FLAGSTAFF_PUBLIC_URL, a message says how to get links instead of linking nowhere', () => {
    const message = slackMessage('prj_1', EVENTS[0] as AuditEvent, undefined);
    expectValidBlockKit(message);
    expect(message.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(message)).toContain('FLAGSTAFF_PUBLIC_URL');
  });
});

describeEachDatabase('Slack webhooks delivered', (database) => {
  let opened: OpenTestDatabase;
  let store: Store;
  let url: string;
  let close: () => Promise<void>;
  let dispatcher: WebhookDispatcher;
  let services: Services;
  const receiver = new Receiver();

  const call = (method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
    callOverHttp(url, method, path, body, key);

  beforeAll(async () => {
    opened = await database.open();
    store = opened.store;
    await bootstrap(store, ADMIN_KEY);
    await receiver.start();
    const built = await buildTestApp(store, {
      node: { webhooksAllowPrivate: true },
      accessControl: UNLIMITED,
      logger: false,
    });
    services = built.node.services;
    url = await built.app.listen({ port: 0, host: '127.0.0.1' });
    close = () => built.app.close();
    // The dashboard is linked at the node's own address, known once it listens (FLAGSTAFF_PUBLIC_URL).
    dispatcher = new WebhookDispatcher(store.webhooks, {
      log: pino({ level: 'silent' }),
      allowPrivate: true,
      dashboard: url,
      pollMs: 20,
    });
    dispatcher.start();
  }, 60_000);
  afterAll(async () => {
    await dispatcher?.stop();
    await receiver.stop();
    await close?.();
    await opened?.close();
  });

  it('a Slack webhook gets a change request as Block Kit, whose approve link opens the dashboard', async () => {
    const created = await call('POST', '/v1/projects/default/webhooks', {
      url: receiver.url,
      format: 'slack',
      events: ['change_request.*', 'flag.*'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.format).toBe('slack');
    await call('PATCH', '/v1/projects/default/environments/production', { requiredApprovals: 1 });
    const project = await call('GET', '/v1/projects/default');
    const editor = (await createKey(services, project.body.id, 'editor')).secret;
    await call('POST', '/v1/projects/default/flags', { key: 'slack-flag' });
    const requested = await call(
      'PATCH',
      '/v1/projects/default/flags/slack-flag?environment=production',
      { enabled: true },
      editor,
    );
    expect(requested.status).toBe(202);
    const deadline = Date.now() + 15_000;
    let message: SlackMessage | undefined;
    while (message === undefined && Date.now() < deadline) {
      message = receiver.received
        .map((r) => r.body as unknown as SlackMessage)
        .find((body) => JSON.stringify(body).includes(requested.body.id));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(message).toBeDefined();
    expectValidBlockKit(message as SlackMessage);
    const button = (message as SlackMessage).blocks.find((b) => b.type === 'actions');
    const link = button?.type === 'actions' ? button.elements[0]?.url : undefined;
    expect(link).toBe(`${url}/projects/${project.body.id}/change-requests?request=${requested.body.id}`);
    const page = await fetch(link as string, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    // Every delivery of a Slack webhook is Block Kit, the flag's creation too.
    const bodies = receiver.received.map((r) => r.body as unknown as SlackMessage);
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    for (const body of bodies) expectValidBlockKit(body);
  });

  it('the webhook page can send a Slack test message', async () => {
    const created = await call('POST', '/v1/projects/default/webhooks', {
      url: receiver.url,
      format: 'slack',
      events: ['flag.*'],
    });
    const before = receiver.received.length;
    const test = await call('POST', `/v1/projects/default/webhooks/${created.body.id}/test`);
    expect(test.body).toMatchObject({ delivered: true, statusCode: 200 });
    const sent = receiver.received.slice(before).map((r) => r.body as unknown as SlackMessage);
    expect(sent).toHaveLength(1);
    expectValidBlockKit(sent[0] as SlackMessage);
    expect((sent[0] as SlackMessage).blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'Webhook test' },
    });
  });

  it('the address guard applies to a Slack webhook as to every other', async () => {
    const guarded = new WebhookService(store, { allowPrivate: false });
    await expect(
      guarded.create(setupActor, 'default', { url: receiver.url, format: 'slack', events: ['flag.*'] }),
    ).rejects.toThrow(/private|loopback|address/i);
  });
});
