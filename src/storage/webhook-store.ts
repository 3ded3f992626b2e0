import type { Page, PageRequest } from '../domain/page.ts';
import type {
  DeliveryState,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  WebhookFormat,
} from '../domain/webhook.ts';

export interface StoredWebhook extends Webhook {
  /**
   * Signs every delivery; never answered back. Sealed with the server secret (docs/decisions/1880),
   * or plaintext if stored before sealing and not yet sealed by `sealPlainSecrets`.
   */
  readonly secret: string;
}

/** A delivery leased to one node for one attempt. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly url: string;
  /** The webhook's secret as stored (sealed). */
  readonly secret: string;
  /** The webhook's format: a `slack` one is sent the event as a Block Kit message. */
  readonly format: WebhookFormat;
  readonly event: string;
  readonly payload: string;
  readonly attempts: number;
  readonly createdAt: string;
}

export interface NewDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly event: string;
  readonly payload: string;
  readonly createdAt: string;
  readonly redeliveryOf?: string;
}

/** A webhook's undelivered events: how many, and since when the oldest has waited. */
export interface WebhookBacklog {
  readonly webhookId: string;
  readonly projectId: string;
  readonly pending: number;
  /** When the oldest pending delivery was queued; null when none is pending. */
  readonly oldestPendingAt: string | null;
}

/** An attempt made on a leased delivery, and the delivery's next state. */
export interface FinishedAttempt {
  readonly deliveryId: string;
  readonly attempt: WebhookAttempt & { readonly id: string; readonly node: string };
  readonly outcome: AttemptOutcome;
}

/** What an attempt decided: the delivery's next state. */
export interface AttemptOutcome {
  readonly state: DeliveryState;
  readonly nextAttemptAt: string;
  readonly finishedAt: string | null;
}

/**
 * The storage role of webhooks: the webhooks, their outbox and its delivery log. Use the one
 * of the write's own store (`store.webhooks()` inside `transaction`) to enqueue, so the event
 * and its deliveries commit together.
 */
export interface WebhookStore {
  /** A project's webhooks in creation order. */
  listWebhooks(projectId: string): Promise<readonly Webhook[]>;
  findWebhook(id: string): Promise<StoredWebhook | undefined>;
  /** The project's active webhooks, with their secrets. */
  activeWebhooks(projectId: string): Promise<readonly StoredWebhook[]>;
  insertWebhook(webhook: StoredWebhook): Promise<void>;
  updateWebhook(webhook: StoredWebhook, expectedVersion: number): Promise<boolean>;
  deleteWebhook(id: string): Promise<void>;
  /**
   * Replaces every stored secret that `isSealed` says is plaintext by `seal(secret)`, leaving the
   * version alone (the webhook did not change); answers how many it sealed.
   */
  sealPlainSecrets(isSealed: (stored: string) => boolean, seal: (plain: string) => string): Promise<number>;

  /** Queues a delivery behind the webhook's others. Locks the webhook's row until commit, so queue order is commit order. */
  enqueueDelivery(delivery: NewDelivery): Promise<void>;
  /** A webhook's deliveries, newest first, each with its attempts in order. */
  listDeliveries(webhookId: string, page: PageRequest): Promise<Page<WebhookDelivery>>;
  findDelivery(id: string): Promise<WebhookDelivery | undefined>;
  /**
   * Leases to `owner` until `leaseUntil` up to `limit` deliveries that are due at `now`, head
   * their webhook's queue, belong to an active webhook and are not leased to anyone else. A
   * delivery MUST be leased to at most one owner at a time, across every node.
   */
  claimDue(
    owner: string,
    now: string,
    leaseUntil: string,
    limit: number,
    skipWebhooks?: readonly string[],
  ): Promise<readonly ClaimedDelivery[]>;
  /**
   * Leases to `owner` up to `limit` of one webhook's pending deliveries in queue order, from its
   * head, stopping at the first one not due yet or leased to someone else: the run a node
   * delivers one after the other without polling in between.
   */
  claimRun(
    webhookId: string,
    owner: string,
    now: string,
    leaseUntil: string,
    limit: number,
  ): Promise<readonly ClaimedDelivery[]>;
  /** Moves the lease of those of `ids` that `owner` still holds to `leaseUntil`; how many it holds. */
  renewLeases(owner: string, ids: readonly string[], leaseUntil: string): Promise<number>;
  /** Gives back the leases `owner` holds on `ids`, so any node may attempt them at once. */
  releaseLeases(owner: string, ids: readonly string[]): Promise<void>;
  /** Every webhook's backlog (only webhooks with pending deliveries), or one project's. */
  backlogs(projectId?: string): Promise<readonly WebhookBacklog[]>;
  /**
   * Logs attempts, in one transaction; applies each outcome and releases its lease only while
   * `owner` still holds it. Answers how many of them it applied.
   */
  finishAttempts(owner: string, finished: readonly FinishedAttempt[]): Promise<number>;
}
