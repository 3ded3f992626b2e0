import { hostname } from 'node:os';
import { systemClock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { processServerSecret, type ServerSecret } from '../domain/server-secret.ts';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  FinishedAttempt,
  WebhookStore,
} from '../storage/webhook-store.ts';
import { type PostOutcome, postSigned, WEBHOOK_TIMEOUT_MS } from './signed-post.ts';
import { slackBody } from './slack-message.ts';

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
  /** How long a claimed delivery stays this node's unless renewed (every third of it while the node works on it). */
  readonly leaseMs?: number;
  /** An attempt with no answer by then failed; default WEBHOOK_TIMEOUT_MS (10 s, docs/product.md §9). */
  readonly timeoutMs?: number;
  /** The wait after the first failure; it doubles with each failure, up to `maxRetryMs`. */
  readonly firstRetryMs?: number;
  readonly maxRetryMs?: number;
  /** docs/product.md §9: retried for 24 h, then given up. */
  readonly giveUpAfterMs?: number;
  readonly clock?: () => number;
  /** Opens the webhooks' sealed secrets; `flagstaff serve` passes its own (docs/decisions/1880). */
  readonly serverSecret?: ServerSecret;
  /** FLAGSTAFF_PUBLIC_URL: the dashboard's origin, linked from Slack messages. */
  readonly dashboard?: string | undefined;
}

const DEFAULTS = {
  pollMs: 1000,
  leaseMs: 15_000,
  timeoutMs: WEBHOOK_TIMEOUT_MS,
  firstRetryMs: 10_000,
  maxRetryMs: 60 * 60 * 1000,
  giveUpAfterMs: 24 * 60 * 60 * 1000,
};
/** At most this many webhooks are worked on by one node at once (one worker each). */
const MAX_WORKERS = 64;
/** A worker leases this many consecutive deliveries of its webhook at a time. */
const RUN = 50;
/** Attempts are recorded in one transaction once the oldest unrecorded one is this old, or when a run ends. */
const RECORD_MS = 250;

/**
 * Delivers the webhook outbox from this node: at least once, in order per webhook (only a
 * queue's head is ever attempted), exactly one node at a time per delivery (a lease in the
 * database), retried with exponential backoff for 24 h, every attempt logged. Every node runs
 * one; they share the work through the leases.
 *
 * Each webhook has a worker of its own, so a slow or hanging receiver holds up only its own
 * queue; a worker leases a run of its queue and delivers it event after event without waiting
 * for the next poll, so a backlog drains at the receiver's pace (docs/decisions/1760).
 */
export class WebhookDispatcher {
  readonly #store: WebhookStore;
  readonly #options: Required<
    Omit<DispatcherOptions, 'log' | 'clock' | 'allowPrivate' | 'serverSecret' | 'dashboard'>
  >;
  readonly #dashboard: string | undefined;
  readonly #serverSecret: ServerSecret;
  readonly #log: DispatcherLog;
  readonly #allowPrivate: boolean;
  readonly #clock: () => number;
  /** Unique per process start, so a restarted node never mistakes a dead one's lease for its own. */
  readonly node = `${hostname()}:${process.pid}:${newId('node').slice(-8)}`;
  readonly #inFlight = new Map<string, AbortController>();
  /** The running worker of each webhook this node delivers, by webhook id. */
  readonly #workers = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;

  constructor(store: WebhookStore, options: DispatcherOptions) {
    this.#store = store;
    this.#log = options.log;
    this.#allowPrivate = options.allowPrivate ?? false;
    this.#clock = options.clock ?? systemClock;
    this.#serverSecret = options.serverSecret ?? processServerSecret();
    this.#dashboard = options.dashboard;
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
    await Promise.all(this.#workers.values());
  }

  /** One poll: claims the due queue heads of webhooks no worker of this node serves, and starts a worker on each. */
  async tick(): Promise<void> {
    const room = MAX_WORKERS - this.#workers.size;
    if (room <= 0) return;
    const now = this.#clock();
    const claimed = await this.#store.claimDue(this.node, iso(now), this.#leaseUntil(now), room, [
      ...this.#workers.keys(),
    ]);
    for (const head of claimed) {
      const worker = this.#work(head).finally(() => this.#workers.delete(head.webhookId));
      this.#workers.set(head.webhookId, worker);
    }
  }

  #leaseUntil(now: number): string {
    return iso(now + this.#options.leaseMs);
  }

  /**
   * Delivers one webhook's queue from `head`, one delivery after the other, leasing the next run
   * as each ends, until the queue is empty, an attempt fails (it waits for its retry) or the
   * node stops. Whatever it leased and did not attempt is given back.
   */
  async #work(head: ClaimedDelivery): Promise<void> {
    let run: ClaimedDelivery[] = [head];
    let current: ClaimedDelivery | undefined;
    // Attempts made and not yet recorded: recorded together, which spares a transaction per event.
    const unrecorded: FinishedAttempt[] = [];
    const record = async (): Promise<boolean> => {
      const batch = unrecorded.splice(0);
      if (batch.length === 0) return true;
      const applied = await this.#store.finishAttempts(this.node, batch);
      if (applied === batch.length) return true;
      this.#log.warn({ webhook: head.webhookId }, 'webhook lease expired during the attempts');
      return false;
    };
    // The lease is renewed while the worker lives, so it can be short: a node killed mid-run
    // leaves its webhook to the others within one lease, not after the longest attempt.
    const renewal = setInterval(() => {
      const held = [...unrecorded.map((f) => f.deliveryId), ...[current, ...run].flatMap((d) => d?.id ?? [])];
      if (held.length === 0) return;
      this.#store
        .renewLeases(this.node, held, this.#leaseUntil(this.#clock()))
        .then((count) => {
          // Another node took over (this one stalled past its lease): stop sending at once.
          if (count < held.length) this.#inFlight.get(current?.id ?? '')?.abort(new Error('lease lost'));
        })
        .catch(() => undefined);
    }, this.#options.leaseMs / 3);
    try {
      while (!this.#stopped) {
        current = run.shift();
        if (current === undefined) {
          // Recorded before the next run is leased, or the run would begin with them again.
          if (!(await record())) return;
          const now = this.#clock();
          run = [
            ...(await this.#store.claimRun(head.webhookId, this.node, iso(now), this.#leaseUntil(now), RUN)),
          ];
          if (run.length === 0) return;
          continue;
        }
        const finished = await this.#attempt(current);
        unrecorded.push(finished);
        current = undefined;
        if (finished.outcome.state !== 'delivered') return;
        // A slow receiver's log is not left behind: record whatever waited for RECORD_MS.
        if (this.#clock() - Date.parse((unrecorded[0] as FinishedAttempt).attempt.at) >= RECORD_MS) {
          if (!(await record())) return;
        }
      }
    } catch (error) {
      this.#log.warn({ err: error, webhook: head.webhookId }, 'webhook delivery failed');
    } finally {
      clearInterval(renewal);
      await record().catch((error) =>
        this.#log.warn({ err: error, webhook: head.webhookId }, 'recording webhook attempts failed'),
      );
      await this.#store
        .releaseLeases(
          this.node,
          run.map((d) => d.id),
        )
        .catch(() => undefined);
    }
  }

  /** One attempt, logged if it failed; what it decided, to be recorded. */
  async #attempt(delivery: ClaimedDelivery): Promise<FinishedAttempt> {
    const controller = new AbortController();
    this.#inFlight.set(delivery.id, controller);
    let sent: PostOutcome;
    try {
      sent = await postSigned(
        {
          url: delivery.url,
          secret: delivery.secret,
          event: delivery.event,
          deliveryId: delivery.id,
          // The outbox keeps the event's JSON; a Slack webhook is sent it as a Block Kit message.
          payload:
            delivery.format === 'slack' ? slackBody(delivery.payload, this.#dashboard) : delivery.payload,
        },
        {
          allowPrivate: this.#allowPrivate,
          timeoutMs: this.#options.timeoutMs,
          signal: controller.signal,
          clock: this.#clock,
          serverSecret: this.#serverSecret,
        },
      );
    } finally {
      this.#inFlight.delete(delivery.id);
    }
    const { statusCode, aborted } = sent;
    const error = aborted ? 'cut short: the delivering node shut down' : sent.error;
    const finished = sent.startedAt + sent.durationMs;
    if (error !== null) {
      this.#log.info(
        { delivery: delivery.id, webhook: delivery.webhookId, statusCode },
        'webhook attempt failed',
      );
    }
    return {
      deliveryId: delivery.id,
      attempt: {
        id: newId('att'),
        node: this.node,
        at: iso(sent.startedAt),
        statusCode,
        error,
        durationMs: sent.durationMs,
      },
      outcome: this.#outcome(delivery, error === null, finished, aborted),
    };
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
