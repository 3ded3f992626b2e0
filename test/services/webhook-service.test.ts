import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/clock.ts';
import type { Project } from '../../src/domain/project.ts';
import { createProject } from '../../src/services/projects/project-service.ts';
import { WebhookService } from '../../src/services/projects/webhook-service.ts';
import { anActor, refusedWith } from './fakes/actors.ts';
import { InMemoryProjectStore } from './fakes/in-memory-project-store.ts';

const clock: Clock = () => Date.parse('2026-03-04T05:06:07.000Z');
const admin = anActor('admin');
/** A public address written as one, so no test waits on DNS. */
const RECEIVER = 'https://93.184.216.34/hooks/flagstaff';

describe('WebhookService over an in-memory store', () => {
  let store: InMemoryProjectStore;
  let webhooks: WebhookService;
  let project: Project;

  beforeEach(async () => {
    store = new InMemoryProjectStore();
    webhooks = new WebhookService(store, { clock });
    project = await createProject(
      store,
      admin,
      { key: 'checkout', environments: [{ key: 'production' }] },
      clock,
    );
  });

  it('answers the secret once, stores it sealed, and keeps it out of the list and the audit log', async () => {
    const created = await webhooks.create(admin, 'checkout', {
      url: RECEIVER,
      events: ['flag.*', 'flag.*'],
      secret: 'shh',
    });

    expect(created).toMatchObject({ secret: 'shh', events: ['flag.*'], active: true, version: 1 });
    expect((await store.webhooks.findWebhook(created.id))?.secret).not.toContain('shh');
    const [listed] = await webhooks.list(admin, 'checkout');
    expect(listed).not.toHaveProperty('secret');
    expect(listed?.backlog).toEqual({ pending: 0, oldestPendingAt: null });
    const event = store.audit.find((e) => e.event.action === 'webhook.created')?.event;
    expect(JSON.stringify(event)).not.toContain(created.secret);
    expect(JSON.stringify(event)).toContain(RECEIVER);
  });

  it.each([
    ['http://10.1.2.3/hook', /private/],
    ['ftp://93.184.216.34/hook', /http or https/],
    ['https://user:pass@93.184.216.34/hook', /credentials/],
    ['not a url', /not a URL/],
  ])('refuses the URL %s, storing nothing', async (url, reason) => {
    await expect(webhooks.create(admin, 'checkout', { url, events: ['*'] })).rejects.toMatchObject({
      ...refusedWith('validation_failed'),
      errors: [{ path: '/url', message: expect.stringMatching(reason) }],
    });
    expect(await webhooks.list(admin, 'checkout')).toEqual([]);
  });

  it("lets only the project's admins manage its webhooks", async () => {
    const other = await createProject(
      store,
      admin,
      { key: 'billing', environments: [{ key: 'live' }] },
      clock,
    );
    const refused = [anActor('editor'), anActor('admin', { projectId: other.id })];

    for (const actor of refused) {
      await expect(
        webhooks.create(actor, 'checkout', { url: RECEIVER, events: ['*'] }),
      ).rejects.toMatchObject(refusedWith('forbidden'));
    }
    await webhooks.create(anActor('admin', { projectId: project.id }), 'checkout', {
      url: RECEIVER,
      events: ['*'],
    });
    expect(await webhooks.list(admin, 'checkout')).toHaveLength(1);
  });

  it('queues a delivery of each audited change to the webhooks that want it, in the change’s transaction', async () => {
    const watching = await webhooks.create(admin, 'checkout', { url: RECEIVER, events: ['webhook.*'] });
    const elsewhere = await webhooks.create(admin, 'checkout', { url: RECEIVER, events: ['flag.*'] });

    await webhooks.update(admin, 'checkout', elsewhere.id, { active: false }, 1);

    // It hears of its own creation too: it is stored before its event is queued, in one transaction.
    expect(store.webhooks.queuedFor(watching.id).map((d) => d.event)).toEqual([
      'webhook.created',
      'webhook.created',
      'webhook.updated',
    ]);
    expect(store.webhooks.queuedFor(elsewhere.id)).toEqual([]);
    const [listed] = await webhooks.list(admin, 'checkout');
    expect(listed?.backlog).toEqual({ pending: 3, oldestPendingAt: '2026-03-04T05:06:07.000Z' });
  });

  it('refuses an update expecting a stale version, changing nothing', async () => {
    const created = await webhooks.create(admin, 'checkout', { url: RECEIVER, events: ['*'] });

    await expect(webhooks.update(admin, 'checkout', created.id, { active: false }, 2)).rejects.toMatchObject(
      refusedWith('precondition_failed'),
    );
    expect(await webhooks.get(admin, 'checkout', created.id)).toMatchObject({ active: true, version: 1 });
  });

  it('answers not found for a webhook of another project', async () => {
    await createProject(store, admin, { key: 'billing', environments: [{ key: 'live' }] }, clock);
    const created = await webhooks.create(admin, 'checkout', { url: RECEIVER, events: ['*'] });

    await expect(webhooks.get(admin, 'billing', created.id)).rejects.toMatchObject(refusedWith('not_found'));
  });
});
