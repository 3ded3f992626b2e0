import type { Page, PageRequest } from '../../../src/domain/page.ts';
import type { Webhook, WebhookDelivery } from '../../../src/domain/webhook.ts';
import type {
  ClaimedDelivery,
  NewDelivery,
  StoredWebhook,
  WebhookBacklog,
  WebhookStore,
} from '../../../src/storage/webhook-store.ts';

const publicWebhook = ({ secret: _, ...webhook }: StoredWebhook): Webhook => webhook;

/** Delivering is the dispatcher's: these tests of use cases never lease or attempt a delivery. */
const dispatcherOnly = (): never => {
  throw new Error(
    'The in-memory webhooks hold the management side only; delivering is tested on a database.',
  );
};

/**
 * The webhook role in memory: webhooks and the deliveries queued for them, as management and the
 * audit log's outbox use them. `state` is what a transaction saves and restores.
 */
export class InMemoryWebhooks implements WebhookStore {
  state = { webhooks: new Map<string, StoredWebhook>(), deliveries: [] as NewDelivery[] };

  async listWebhooks(projectId: string): Promise<readonly Webhook[]> {
    return [...this.state.webhooks.values()].filter((w) => w.projectId === projectId).map(publicWebhook);
  }

  async findWebhook(id: string): Promise<StoredWebhook | undefined> {
    return this.state.webhooks.get(id);
  }

  async activeWebhooks(projectId: string): Promise<readonly StoredWebhook[]> {
    return [...this.state.webhooks.values()].filter((w) => w.projectId === projectId && w.active);
  }

  async insertWebhook(webhook: StoredWebhook): Promise<void> {
    this.state.webhooks.set(webhook.id, webhook);
  }

  async updateWebhook(webhook: StoredWebhook, expectedVersion: number): Promise<boolean> {
    if (this.state.webhooks.get(webhook.id)?.version !== expectedVersion) return false;
    this.state.webhooks.set(webhook.id, webhook);
    return true;
  }

  async deleteWebhook(id: string): Promise<void> {
    this.state.webhooks.delete(id);
    this.state.deliveries = this.state.deliveries.filter((d) => d.webhookId !== id);
  }

  async sealPlainSecrets(): Promise<number> {
    return 0;
  }

  async enqueueDelivery(delivery: NewDelivery): Promise<void> {
    this.state.deliveries.push(delivery);
  }

  async listDeliveries(webhookId: string, _page: PageRequest): Promise<Page<WebhookDelivery>> {
    if (this.queuedFor(webhookId).length > 0) dispatcherOnly();
    return { items: [] };
  }

  async findDelivery(): Promise<WebhookDelivery | undefined> {
    return dispatcherOnly();
  }

  async claimDue(): Promise<readonly ClaimedDelivery[]> {
    return dispatcherOnly();
  }

  async claimRun(): Promise<readonly ClaimedDelivery[]> {
    return dispatcherOnly();
  }

  async renewLeases(): Promise<number> {
    return dispatcherOnly();
  }

  async releaseLeases(): Promise<void> {
    dispatcherOnly();
  }

  async finishAttempts(): Promise<number> {
    return dispatcherOnly();
  }

  async backlogs(projectId?: string): Promise<readonly WebhookBacklog[]> {
    return [...this.state.webhooks.values()]
      .filter((w) => projectId === undefined || w.projectId === projectId)
      .map((w) => {
        const queued = this.queuedFor(w.id);
        return {
          webhookId: w.id,
          projectId: w.projectId,
          pending: queued.length,
          oldestPendingAt: queued[0]?.createdAt ?? null,
        };
      });
  }

  /** The deliveries queued for a webhook, oldest first: what the outbox enqueued. */
  queuedFor(webhookId: string): readonly NewDelivery[] {
    return this.state.deliveries.filter((d) => d.webhookId === webhookId);
  }
}
