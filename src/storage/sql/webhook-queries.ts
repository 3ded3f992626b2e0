import { type Kysely, sql, type Transaction } from 'kysely';
import type { DeliveryState, WebhookDelivery } from '../../domain/webhook.ts';
import type { Page, PageRequest } from '../store.ts';
import type {
  ClaimedDelivery,
  FinishedAttempt,
  NewDelivery,
  StoredWebhook,
  WebhookBacklog,
  WebhookStore,
} from '../webhook-store.ts';
import type { Database } from './database.ts';
import { decodeCursor, encodeCursor } from './sql-context.ts';

type WebhooksTable = {
  id: string;
  project_id: string;
  url: string;
  events: string;
  secret: string;
  /** null: JSON (migration 0022). */
  format: string | null;
  active: number;
  next_position: number;
  version: number;
  created_at: string;
  updated_at: string;
};

type WebhookDeliveriesTable = {
  id: string;
  webhook_id: string;
  position: number;
  event: string;
  payload: string;
  redelivery_of: string | null;
  state: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  finished_at: string | null;
};

type WebhookAttemptsTable = {
  id: string;
  delivery_id: string;
  at: string;
  node: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
};

/** Migration 0006's tables, added to the shared database type only here. */
export type WebhookTables = {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
};

type Db = Kysely<Database & WebhookTables>;

const webhookFromRow = (row: WebhooksTable): StoredWebhook => ({
  id: row.id,
  projectId: row.project_id,
  url: row.url,
  events: JSON.parse(row.events),
  secret: row.secret,
  format: row.format === 'slack' ? 'slack' : 'json',
  active: row.active === 1,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** What a claim reads of a delivery and its webhook. */
const CLAIMED_COLUMNS = [
  'd.id',
  'd.webhook_id',
  'd.event',
  'd.payload',
  'd.attempts',
  'd.created_at',
  'w.url',
  'w.secret',
  'w.format',
] as const;

const claimedFromRow = (row: {
  id: string;
  webhook_id: string;
  event: string;
  payload: string;
  attempts: number;
  created_at: string;
  url: string;
  secret: string;
  format: string | null;
}): ClaimedDelivery => ({
  id: row.id,
  webhookId: row.webhook_id,
  url: row.url,
  secret: row.secret,
  format: row.format === 'slack' ? 'slack' : 'json',
  event: row.event,
  payload: row.payload,
  attempts: row.attempts,
  createdAt: row.created_at,
});

const withoutSecret = ({ secret: _, ...webhook }: StoredWebhook) => webhook;

/** The webhook role over the same connection (or transaction) as the SqlStore that made it. */
export class WebhookQueries implements WebhookStore {
  readonly #db: Db;

  constructor(db: Kysely<Database> | Transaction<Database>) {
    this.#db = db.withTables<WebhookTables>();
  }

  async listWebhooks(projectId: string) {
    const rows = await this.#db
      .selectFrom('webhooks')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map((row) => withoutSecret(webhookFromRow(row)));
  }

  async findWebhook(id: string) {
    const row = await this.#db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && webhookFromRow(row);
  }

  async activeWebhooks(projectId: string) {
    const rows = await this.#db
      .selectFrom('webhooks')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('active', '=', 1)
      .orderBy('id')
      .execute();
    return rows.map(webhookFromRow);
  }

  async insertWebhook(webhook: StoredWebhook) {
    await this.#db
      .insertInto('webhooks')
      .values({
        id: webhook.id,
        project_id: webhook.projectId,
        url: webhook.url,
        events: JSON.stringify(webhook.events),
        secret: webhook.secret,
        format: webhook.format === 'slack' ? 'slack' : null,
        active: webhook.active ? 1 : 0,
        next_position: 1,
        version: webhook.version,
        created_at: webhook.createdAt,
        updated_at: webhook.updatedAt,
      })
      .execute();
  }

  async updateWebhook(webhook: StoredWebhook, expectedVersion: number) {
    const result = await this.#db
      .updateTable('webhooks')
      .set({
        url: webhook.url,
        events: JSON.stringify(webhook.events),
        secret: webhook.secret,
        format: webhook.format === 'slack' ? 'slack' : null,
        active: webhook.active ? 1 : 0,
        version: webhook.version,
        updated_at: webhook.updatedAt,
      })
      .where('id', '=', webhook.id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteWebhook(id: string) {
    await this.#db.deleteFrom('webhooks').where('id', '=', id).execute();
  }

  async sealPlainSecrets(isSealed: (stored: string) => boolean, seal: (plain: string) => string) {
    const rows = await this.#db.selectFrom('webhooks').select(['id', 'secret']).execute();
    let sealed = 0;
    for (const row of rows.filter((r) => !isSealed(r.secret))) {
      // Compared with what was read: a secret set meanwhile (sealed by then) is left as it is.
      const result = await this.#db
        .updateTable('webhooks')
        .set({ secret: seal(row.secret) })
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .executeTakeFirst();
      sealed += Number(result.numUpdatedRows);
    }
    return sealed;
  }

  /** Runs `work` in the open transaction, or in one of its own: a log line and its state change go together. */
  #atomically<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.#db.isTransaction ? work(this.#db) : this.#db.transaction().execute(work);
  }

  async enqueueDelivery(delivery: NewDelivery) {
    // The update takes the webhook row's lock, held to commit: concurrent writes queue in commit order.
    await this.#db
      .updateTable('webhooks')
      .set({ next_position: sql`next_position + 1` })
      .where('id', '=', delivery.webhookId)
      .execute();
    const { next_position } = await this.#db
      .selectFrom('webhooks')
      .select('next_position')
      .where('id', '=', delivery.webhookId)
      .executeTakeFirstOrThrow();
    await this.#db
      .insertInto('webhook_deliveries')
      .values({
        id: delivery.id,
        webhook_id: delivery.webhookId,
        position: next_position - 1,
        event: delivery.event,
        payload: delivery.payload,
        redelivery_of: delivery.redeliveryOf ?? null,
        state: 'pending',
        attempts: 0,
        next_attempt_at: delivery.createdAt,
        lease_owner: null,
        lease_until: null,
        created_at: delivery.createdAt,
        finished_at: null,
      })
      .execute();
  }

  async listDeliveries(webhookId: string, page: PageRequest): Promise<Page<WebhookDelivery>> {
    let query = this.#db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (page.cursor) query = query.where('position', '<', Number(decodeCursor(page.cursor)));
    const rows = await query
      .orderBy('position', 'desc')
      .limit(page.limit + 1)
      .execute();
    const kept = rows.slice(0, page.limit);
    const items = await this.#withAttempts(kept);
    const last = kept.at(-1);
    return rows.length > page.limit && last
      ? { items, nextCursor: encodeCursor(String(last.position)) }
      : { items };
  }

  async findDelivery(id: string) {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && (await this.#withAttempts([row]))[0];
  }

  async claimDue(
    owner: string,
    now: string,
    leaseUntil: string,
    limit: number,
    skipWebhooks: readonly string[] = [],
  ) {
    let query = this.#db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(CLAIMED_COLUMNS)
      .where('w.active', '=', 1)
      .where('d.state', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', now)]))
      // Only the head of each webhook's queue: later events wait for it (in order per webhook).
      .where('d.position', '=', (eb) =>
        eb
          .selectFrom('webhook_deliveries as q')
          .select((q) => q.fn.min('q.position').as('head'))
          .whereRef('q.webhook_id', '=', 'd.webhook_id')
          .where('q.state', '=', 'pending'),
      );
    if (skipWebhooks.length > 0) query = query.where('d.webhook_id', 'not in', [...skipWebhooks]);
    const heads = await query.orderBy('d.next_attempt_at').limit(limit).execute();
    const claimed: ClaimedDelivery[] = [];
    for (const head of heads) {
      // Whoever updates the row first owns it; the other node's update then matches nothing.
      if ((await this.#lease([head.id], owner, now, leaseUntil)) === 1) claimed.push(claimedFromRow(head));
    }
    return claimed;
  }

  async claimRun(webhookId: string, owner: string, now: string, leaseUntil: string, limit: number) {
    const queue = await this.#db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select([...CLAIMED_COLUMNS, 'd.next_attempt_at', 'd.lease_owner', 'd.lease_until'])
      .where('d.webhook_id', '=', webhookId)
      .where('w.active', '=', 1)
      .where('d.state', '=', 'pending')
      .orderBy('d.position')
      .limit(limit)
      .execute();
    const free = (row: (typeof queue)[number]) =>
      row.lease_owner === owner || row.lease_until === null || row.lease_until < now;
    const stop = queue.findIndex((row) => row.next_attempt_at > now || !free(row));
    const run = stop === -1 ? queue : queue.slice(0, stop);
    if (run.length === 0) return [];
    const ids = run.map((row) => row.id);
    if ((await this.#lease(ids, owner, now, leaseUntil)) === ids.length) return run.map(claimedFromRow);
    // Another node leased part of the run between the read and the update: keep nothing of it.
    await this.releaseLeases(owner, ids);
    return [];
  }

  /** Leases `ids` to `owner` where free (or already `owner`'s); how many it now holds. */
  async #lease(ids: readonly string[], owner: string, now: string, leaseUntil: string): Promise<number> {
    const result = await this.#db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where('id', 'in', [...ids])
      .where('state', '=', 'pending')
      .where((eb) =>
        eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async renewLeases(owner: string, ids: readonly string[], leaseUntil: string) {
    if (ids.length === 0) return 0;
    const result = await this.#db
      .updateTable('webhook_deliveries')
      .set({ lease_until: leaseUntil })
      .where('id', 'in', [...ids])
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async releaseLeases(owner: string, ids: readonly string[]) {
    if (ids.length === 0) return;
    await this.#db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, lease_until: null })
      .where('id', 'in', [...ids])
      .where('lease_owner', '=', owner)
      .execute();
  }

  async backlogs(projectId?: string): Promise<readonly WebhookBacklog[]> {
    let query = this.#db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select((eb) => [
        'd.webhook_id',
        'w.project_id',
        eb.fn.countAll<number | string>().as('pending'),
        eb.fn.min('d.created_at').as('oldest'),
      ])
      .where('d.state', '=', 'pending')
      .groupBy(['d.webhook_id', 'w.project_id']);
    if (projectId !== undefined) query = query.where('w.project_id', '=', projectId);
    const rows = await query.execute();
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      projectId: row.project_id,
      pending: Number(row.pending),
      oldestPendingAt: row.oldest,
    }));
  }

  async finishAttempts(owner: string, finished: readonly FinishedAttempt[]) {
    if (finished.length === 0) return 0;
    return this.#atomically(async (db) => {
      await db
        .insertInto('webhook_attempts')
        .values(
          finished.map(({ deliveryId, attempt }) => ({
            id: attempt.id,
            delivery_id: deliveryId,
            at: attempt.at,
            node: attempt.node,
            status_code: attempt.statusCode,
            error: attempt.error,
            duration_ms: attempt.durationMs,
          })),
        )
        .execute();
      let applied = 0;
      for (const { deliveryId, outcome } of finished) {
        const result = await db
          .updateTable('webhook_deliveries')
          .set({
            state: outcome.state,
            attempts: sql`attempts + 1`,
            next_attempt_at: outcome.nextAttemptAt,
            finished_at: outcome.finishedAt,
            lease_owner: null,
            lease_until: null,
          })
          .where('id', '=', deliveryId)
          .where('lease_owner', '=', owner)
          .executeTakeFirst();
        applied += Number(result.numUpdatedRows);
      }
      return applied;
    });
  }

  async #withAttempts(rows: readonly WebhookDeliveriesTable[]): Promise<WebhookDelivery[]> {
    if (rows.length === 0) return [];
    const attempts = await this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      event: row.event,
      state: row.state as DeliveryState,
      attempts: attempts
        .filter((a) => a.delivery_id === row.id)
        .map((a) => ({ at: a.at, statusCode: a.status_code, error: a.error, durationMs: a.duration_ms })),
      nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
      redeliveryOf: row.redelivery_of,
      payload: JSON.parse(row.payload),
    }));
  }
}
