import { randomBytes } from 'node:crypto';
import { personOf } from '../../domain/change-request.ts';
import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { notFound, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { processServerSecret, type ServerSecret } from '../../domain/server-secret.ts';
import type { Webhook, WebhookDelivery, WebhookFormat } from '../../domain/webhook.ts';
import type { Page, PageRequest, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { StoredWebhook, WebhookBacklog } from '../../storage/webhook-store.ts';
import { refusedWebhookUrl } from '../../webhooks/address-guard.ts';
import { postSigned } from '../../webhooks/signed-post.ts';
import { slackBody } from '../../webhooks/slack-message.ts';
import type { Actor } from '../core/actor.ts';
import { checkIfMatch } from '../core/if-match.ts';
import { accessProject } from '../core/project-access.ts';
import { type AuditRoles, type VersionedKind, writeVersioned } from '../core/versioned-write.ts';

export interface WebhookInput {
  readonly url: string;
  /** Default json; `slack`: each event as a Block Kit message (Slack's incoming webhooks). */
  readonly format?: WebhookFormat;
  readonly events: readonly string[];
  readonly secret?: string;
  readonly active?: boolean;
}

export type WebhookPatch = Partial<WebhookInput>;

/** The event a test sends (`Flagstaff-Event`); no audit action has this name, so no real event is mistaken for it. */
export const TEST_EVENT = 'webhook.test';

/** What the receiver made of a test event, told to whoever sent it (docs/decisions/1812). */
export interface WebhookTestReport {
  readonly event: typeof TEST_EVENT;
  /** `Flagstaff-Delivery` of the test: `tst_…`, never a delivery of the log. */
  readonly deliveryId: string;
  readonly sentAt: string;
  /** The receiver answered 2xx. */
  readonly delivered: boolean;
  /** null when it never answered (refused address, no connection, timeout). */
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export interface CreatedWebhook extends Webhook {
  /** Shown in the response that creates it (generated when none was given), never again. */
  readonly secret: string;
}

const publicWebhook = ({ secret: _, ...webhook }: StoredWebhook): Webhook => webhook;

const withBacklog = (webhook: Webhook, backlogs: readonly WebhookBacklog[]): Webhook => {
  const backlog = backlogs.find((b) => b.webhookId === webhook.id);
  return {
    ...webhook,
    backlog: { pending: backlog?.pending ?? 0, oldestPendingAt: backlog?.oldestPendingAt ?? null },
  };
};

/** The store roles webhook use cases name: the project, the webhooks and their outbox, the audit log. */
export type WebhookRoles = ProjectStore & AuditRoles;

/** Webhooks as the one versioned write stores and audits them (the audit log drops their secret). */
const WEBHOOKS: VersionedKind<StoredWebhook, WebhookRoles> = {
  type: 'webhook',
  key: () => null,
  logOf: (webhook) => webhook.projectId,
  insert: (tx, webhook) => tx.webhooks.insertWebhook(webhook),
  update: (tx, webhook, expectedVersion) => tx.webhooks.updateWebhook(webhook, expectedVersion),
  remove: async (tx, webhook) => {
    await tx.webhooks.deleteWebhook(webhook.id);
    return true;
  },
};

/** Webhooks of a project, managed by its admins (docs/product.md §9). Deliveries are the dispatcher's. */
export class WebhookService {
  readonly #store: WithTransactions<WebhookRoles>;
  readonly #allowPrivate: boolean;
  readonly #clock: Clock;
  /** Seals the secrets before they are stored, and opens them to sign a test event (docs/decisions/1880). */
  readonly #serverSecret: ServerSecret;

  readonly #dashboard: string | undefined;

  constructor(
    store: WithTransactions<WebhookRoles>,
    options: {
      allowPrivate?: boolean;
      clock?: Clock;
      serverSecret?: ServerSecret;
      /** The dashboard's origin, for a Slack test message's link. */
      dashboard?: string | undefined;
    } = {},
  ) {
    this.#store = store;
    this.#dashboard = options.dashboard;
    this.#clock = options.clock ?? systemClock;
    this.#serverSecret = options.serverSecret ?? processServerSecret();
    this.#allowPrivate = options.allowPrivate ?? false;
  }

  async list(actor: Actor, projectIdOrKey: string): Promise<readonly Webhook[]> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'admin');
    const [webhooks, backlogs] = await Promise.all([
      this.#store.webhooks.listWebhooks(project.id),
      this.#store.webhooks.backlogs(project.id),
    ]);
    return webhooks.map((webhook) => withBacklog(webhook, backlogs));
  }

  async get(actor: Actor, projectIdOrKey: string, webhookId: string): Promise<Webhook> {
    const webhook = await this.#find(actor, projectIdOrKey, webhookId);
    return withBacklog(publicWebhook(webhook), await this.#store.webhooks.backlogs(webhook.projectId));
  }

  /** Every webhook's undelivered events (for /metrics), across projects. */
  backlogs(): Promise<readonly WebhookBacklog[]> {
    return this.#store.webhooks.backlogs();
  }

  async create(actor: Actor, projectIdOrKey: string, input: WebhookInput): Promise<CreatedWebhook> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'admin');
    await this.#checkUrl(input.url);
    const at = isoTime(this.#clock);
    const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
    const webhook: StoredWebhook = {
      id: newId('whk'),
      projectId: project.id,
      url: input.url,
      format: input.format ?? 'json',
      events: [...new Set(input.events)],
      secret: this.#serverSecret.seal(secret),
      active: input.active ?? true,
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, WEBHOOKS, {
        create: async () => ({ next: webhook, action: 'webhook.created' }),
      }),
    );
    return { ...webhook, secret };
  }

  async update(
    actor: Actor,
    projectIdOrKey: string,
    webhookId: string,
    patch: WebhookPatch,
    ifMatch: number | undefined,
  ): Promise<Webhook> {
    const current = await this.#find(actor, projectIdOrKey, webhookId);
    checkIfMatch(ifMatch, current.version);
    if (patch.url !== undefined) await this.#checkUrl(patch.url);
    const next: StoredWebhook = {
      ...current,
      url: patch.url ?? current.url,
      format: patch.format ?? current.format,
      events: patch.events === undefined ? current.events : [...new Set(patch.events)],
      secret: patch.secret === undefined ? current.secret : this.#serverSecret.seal(patch.secret),
      active: patch.active ?? current.active,
      version: current.version + 1,
      updatedAt: isoTime(this.#clock),
    };
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, WEBHOOKS, {
        load: async () => current,
        change: async () => ({ next, action: 'webhook.updated' }),
      }),
    );
    return publicWebhook(next);
  }

  async delete(actor: Actor, projectIdOrKey: string, webhookId: string): Promise<void> {
    const current = await this.#find(actor, projectIdOrKey, webhookId);
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, WEBHOOKS, {
        load: async () => current,
        change: async () => ({ next: null, action: 'webhook.deleted' }),
      }),
    );
  }

  /** The delivery log, newest first: every delivery with each attempt's answer. */
  async deliveries(
    actor: Actor,
    projectIdOrKey: string,
    webhookId: string,
    page: PageRequest,
  ): Promise<Page<WebhookDelivery>> {
    const webhook = await this.#find(actor, projectIdOrKey, webhookId);
    return this.#store.webhooks.listDeliveries(webhook.id, page);
  }

  /** Sends a delivery's event again, as a new delivery at the end of the webhook's queue. */
  async redeliver(
    actor: Actor,
    projectIdOrKey: string,
    webhookId: string,
    deliveryId: string,
  ): Promise<WebhookDelivery> {
    const webhook = await this.#find(actor, projectIdOrKey, webhookId);
    const original = await this.#store.webhooks.findDelivery(deliveryId);
    if (original === undefined || original.webhookId !== webhook.id) {
      throw notFound(`No delivery "${deliveryId}" of this webhook.`);
    }
    const id = newId('dlv');
    await this.#store.transaction((tx) =>
      tx.webhooks.enqueueDelivery({
        id,
        webhookId: webhook.id,
        event: original.event,
        payload: JSON.stringify(original.payload),
        createdAt: isoTime(this.#clock),
        redeliveryOf: original.id,
      }),
    );
    return (await this.#store.webhooks.findDelivery(id)) as WebhookDelivery;
  }

  /**
   * Sends a signed test event to the webhook's URL now (active or not), under the rules real
   * deliveries follow (the address guard, checked again; 10 s; no redirects), and reports the
   * receiver's answer. It is not queued, retried or kept in the delivery log (docs/decisions/1812).
   */
  async sendTest(actor: Actor, projectIdOrKey: string, webhookId: string): Promise<WebhookTestReport> {
    const webhook = await this.#find(actor, projectIdOrKey, webhookId);
    const deliveryId = newId('tst');
    const sentAt = isoTime(this.#clock);
    const json = JSON.stringify({
      type: TEST_EVENT,
      projectId: webhook.projectId,
      event: {
        id: deliveryId,
        at: sentAt,
        actor: personOf(actor.principal),
        action: TEST_EVENT,
        resource: { type: 'webhook', id: webhook.id, key: null },
        before: null,
        after: null,
        requestId: actor.requestId,
      },
    });
    // A Slack webhook is sent what it will get for every event: a Block Kit message.
    const payload = webhook.format === 'slack' ? slackBody(json, this.#dashboard) : json;
    const sent = await postSigned(
      { url: webhook.url, secret: webhook.secret, event: TEST_EVENT, deliveryId, payload },
      { allowPrivate: this.#allowPrivate, clock: this.#clock, serverSecret: this.#serverSecret },
    );
    return {
      event: TEST_EVENT,
      deliveryId,
      sentAt,
      delivered: sent.error === null,
      statusCode: sent.statusCode,
      error: sent.error,
      durationMs: sent.durationMs,
    };
  }

  async #find(actor: Actor, projectIdOrKey: string, webhookId: string): Promise<StoredWebhook> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'admin');
    const webhook = await this.#store.webhooks.findWebhook(webhookId);
    if (webhook === undefined || webhook.projectId !== project.id) {
      throw notFound(`No webhook "${webhookId}" in project "${project.key}".`);
    }
    return webhook;
  }

  async #checkUrl(url: string): Promise<void> {
    const refused = await refusedWebhookUrl(url, this.#allowPrivate);
    if (refused !== undefined) {
      throw validationFailed(`The webhook URL ${refused}.`, [{ path: '/url', message: refused }]);
    }
  }
}
