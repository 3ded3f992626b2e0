import { hostname } from 'node:os';
import { systemClock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import type { AttemptOutcome, ClaimedDelivery, WebhookStore } from '../storage/webhook-store.ts';
import { refusedWebhookUrl } from './address-guard.ts';
import { webhookSignature } from './signature.ts';

export interface DispatcherLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface DispatcherOptions {
  readonly log: DispatcherLog;
  /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: let webhooks reach private addresses (tests, internal receivers). */
  readonly allowPrivate?: boolean;
  /** How often to look for due deliveries. */
  readonly pollMs?: number;
  /** How long a claimed delivery stays this node's; longer than an attempt can take. */
  readonly leaseMs?: number;
  /** docs/product.md §9: an attempt that has no answer after 10 s failed. */
  readonly timeoutMs?: number;
  /** The wait after the first failure; it doubles with each failure, up to `maxRetryMs`. */
  readonly firstRetryMs?: number;
  readonly maxRetryMs?: number;
  /** docs/product.md §9: retried for 24 h, then given up. */
  readonly giveUpAfterMs?: number;
  readonly clock?: () => number;
}

const DEFAULTS = {
  pollMs: 1000,
  leaseMs: 30_000,
  timeoutMs: 10_000,
  firstRetryMs: 10_000,
  maxRetryMs: 60 * 60 * 1000,
  giveUpAfterMs: 24 * 60 * 60 * 1000,
};
const BATCH = 20;
/** At most this much of a receiver's answer is kept in the delivery log. */
const ERROR_TEXT_LIMIT = 200;

/**
 * Delivers the webhook outbox from this node: at least once, in order per webhook (only a
 * queue's head is ever attempted), exactly one node at a time per delivery (a lease in the
 * database), retried with exponential backoff for 24 h, every attempt logged. Every node runs
 * one; they share the work through the leases.
 */
export class WebhookDispatcher {
  readonly #store: WebhookStore;
  readonly #options: Required<Omit<DispatcherOptions, 'log' | 'clock' | 'allowPrivate'>>;
  readonly #log: DispatcherLog;
  readonly #allowPrivate: boolean;
  readonly #clock: () => number;
  /** Unique per process start, so a restarted node never mistakes a dead one's lease for its own. */
  readonly node = `${hostname()}:${process.pid}:${newId('node').slice(-8)}`;
  readonly #inFlight = new Map<string, AbortController>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;

  constructor(store: WebhookStore, options: DispatcherOptions) {
    this.#store = store;
    this.#log = options.log;
    this.#allowPrivate = options.allowPrivate ?? false;
    this.#clock = options.clock ?? systemClock;
    this.#options = {
      pollMs: options.pollMs ?? DEFAULTS.pollMs,
      leaseMs: options.leaseMs ?? DEFAULTS.leaseMs,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      firstRetryMs: options.firstRetryMs ?? DEFAULTS.firstRetryMs,
      maxRetryMs: options.maxRetryMs ?? DEFAULTS.maxRetryMs,
      giveUpAfterMs: options.giveUpAfterMs ?? DEFAULTS.giveUpAfterMs,
    };
  }

  start(): void {
    this.#stopped = false;
    const loop = () => {
      if (this.#stopped) return;
      this.#ticking = this.tick()
        .catch((error) => this.#log.warn({ err: error }, 'webhook delivery round failed'))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(loop, this.#options.pollMs).unref();
        });
    };
    loop();
  }

  /** Stops polling; attempts in flight are cut short, logged, and left for the next node at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const controller of this.#inFlight.values())
      controller.abort(new Error('the node is shutting down'));
    await this.#ticking;
  }

  /** One round: claims the due queue heads and attempts them. */
  async tick(): Promise<void> {
    const now = this.#clock();
    const claimed = await this.#store.claimDue(this.node, iso(now), iso(now + this.#options.leaseMs), BATCH);
    await Promise.all(claimed.map((delivery) => this.#attempt(delivery)));
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const controller = new AbortController();
    this.#inFlight.set(delivery.id, controller);
    const started = this.#clock();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const refused = await refusedWebhookUrl(delivery.url, this.#allowPrivate);
      if (refused !== undefined) {
        error = `not sent: the URL ${refused}`;
      } else {
        const response = await fetch(delivery.url, {
          method: 'POST',
          redirect: 'manual',
          signal: AbortSignal.any([controller.signal, AbortSignal.timeout(this.#options.timeoutMs)]),
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Flagstaff-Webhooks',
            'flagstaff-event': delivery.event,
            'flagstaff-delivery': delivery.id,
            'flagstaff-signature': webhookSignature(
              delivery.secret,
              delivery.payload,
              Math.floor(started / 1000),
            ),
          },
          body: delivery.payload,
        });
        statusCode = response.status;
        if (statusCode < 200 || statusCode > 299) {
          error = `answered ${statusCode}: ${(await response.text().catch(() => '')).slice(0, ERROR_TEXT_LIMIT)}`;
        } else {
          await response.body?.cancel();
        }
      }
    } catch (caught) {
      error = controller.signal.aborted
        ? 'cut short: the delivering node shut down'
        : caught instanceof Error && caught.name === 'TimeoutError'
          ? `no answer within ${this.#options.timeoutMs / 1000} s`
          : `could not connect: ${caught instanceof Error ? caught.message : String(caught)}`;
    } finally {
      this.#inFlight.delete(delivery.id);
    }
    const finished = this.#clock();
    const outcome = this.#outcome(delivery, error === null, finished, controller.signal.aborted);
    const kept = await this.#store.finishAttempt(
      delivery.id,
      this.node,
      {
        id: newId('att'),
        node: this.node,
        at: iso(started),
        statusCode,
        error,
        durationMs: finished - started,
      },
      outcome,
    );
    if (!kept) this.#log.warn({ delivery: delivery.id }, 'webhook lease expired during the attempt');
    if (error !== null) {
      this.#log.info(
        { delivery: delivery.id, webhook: delivery.webhookId, statusCode },
        'webhook attempt failed',
      );
    }
  }

  #outcome(delivery: ClaimedDelivery, succeeded: boolean, now: number, shutdown: boolean): AttemptOutcome {
    if (succeeded) return { state: 'delivered', nextAttemptAt: iso(now), finishedAt: iso(now) };
    // Cut short by our own shutdown: not the receiver's fault, so the next node tries at once.
    if (shutdown) return { state: 'pending', nextAttemptAt: iso(now), finishedAt: null };
    if (now - Date.parse(delivery.createdAt) >= this.#options.giveUpAfterMs) {
      return { state: 'failed', nextAttemptAt: iso(now), finishedAt: iso(now) };
    }
    const { firstRetryMs, maxRetryMs } = this.#options;
    const backoff = Math.min(firstRetryMs * 2 ** delivery.attempts, maxRetryMs);
    // ±20 % jitter, so receivers that come back are not hit by every queue at once.
    const wait = backoff * (0.8 + Math.random() * 0.4);
    return { state: 'pending', nextAttemptAt: iso(now + wait), finishedAt: null };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
