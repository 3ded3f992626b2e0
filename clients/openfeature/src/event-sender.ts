import { type BufferedEvent, batchBody, bufferedEvent, EventBuffer } from './event-buffer.ts';
import { type EventTransport, type PostOutcome, postEvents } from './post-events.ts';
import { retryDelayMs } from './retry-delay.ts';
import type { WireEvent } from './tracking-event.ts';
import {
  KEEPALIVE_BYTES,
  MAX_BATCH_BYTES,
  type TrackingLogger,
  type TrackingSettings,
} from './tracking-options.ts';

/** What became of the events tracked so far. */
export interface TrackingStats {
  /** Acknowledged by the server (2xx), each counted once. */
  readonly delivered: number;
  /** Refused by the server, by index or with their whole batch (4xx): never sent again. */
  readonly refused: number;
  /** Dropped by the client: the buffer was full, or the event could not be written as JSON. */
  readonly dropped: number;
  /** Held, waiting to be sent or acknowledged. */
  readonly buffered: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Batches tracking events to POST /v1/events (decision 1930): a batch leaves when it is full or
 * its oldest event has waited `flushIntervalMs`, one request at a time; a network error, 5xx or
 * 429 sends the same batch (the same ids) again after a jittered exponential backoff or the
 * server's Retry-After; a 4xx or a refusal by index drops those events. Nothing here throws to the
 * caller, and `enqueue` never waits.
 */
export class EventSender {
  readonly #transport: EventTransport;
  readonly #settings: TrackingSettings;
  readonly #logger: TrackingLogger;
  readonly #buffer: EventBuffer;
  #sending: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  /** Failures in a row; while > 0, nothing is sent before `#retryAt`. */
  #failures = 0;
  #retryAt = 0;
  /** Full batches are to be sent in the next turn. */
  #fullSoon = false;
  #delivered = 0;
  #refused = 0;
  #dropped = 0;

  constructor(transport: EventTransport, settings: TrackingSettings, logger: TrackingLogger) {
    this.#transport = transport;
    this.#settings = settings;
    this.#logger = logger;
    this.#buffer = new EventBuffer(settings.maxBufferSize);
  }

  stats(): TrackingStats {
    return {
      delivered: this.#delivered,
      refused: this.#refused,
      dropped: this.#dropped,
      buffered: this.#buffer.size,
    };
  }

  /** Holds `event` for its batch; the request goes later, never in the caller's turn. */
  enqueue(event: WireEvent): void {
    const buffered = bufferedEvent(event);
    if (buffered === undefined || buffered.bytes > MAX_BATCH_BYTES) {
      this.#dropped++;
      this.#logger.warn(
        `Flagstaff: tracking event "${event.name}" dropped: it cannot be sent as JSON within 512 KiB.`,
      );
      return;
    }
    const dropped = this.#buffer.push(buffered);
    if (dropped > 0) {
      // Warn at the first drop of a run of them, not at every one.
      if (this.#dropped === 0 || this.#failures === 0) {
        this.#logger.warn(
          'Flagstaff: tracking buffer full, dropping the oldest events (see tracking.stats()).',
        );
      }
      this.#dropped += dropped;
    }
    if (this.#buffer.waiting >= this.#settings.batchSize && this.#failures === 0 && !this.#fullSoon) {
      // Not in the caller's turn: a read of a flag or a track() never waits for a request to be made.
      this.#fullSoon = true;
      setTimeout(() => {
        this.#fullSoon = false;
        void this.#send(false);
      }, 0);
    }
    this.#schedule(this.#settings.flushIntervalMs);
  }

  /** Sends every waiting batch now, one after another, until the buffer is empty or a batch must wait to be retried. */
  async flush(): Promise<void> {
    await this.#sending;
    await this.#send(true);
  }

  /** Sends the waiting batches (only full ones unless `all`), one request at a time. */
  #send(all: boolean): Promise<void> {
    this.#sending ??= this.#drain(all).finally(() => {
      this.#sending = undefined;
      if (this.#buffer.waiting > 0) this.#schedule(this.#settings.flushIntervalMs);
    });
    return this.#sending;
  }

  /**
   * The page is being hidden and may never come back: sends what is held (on its way or not, as
   * the ids make a repeat harmless) in keepalive requests, which outlive the page, within the
   * browser's 64 KiB for them. What does not fit waits for the page to come back.
   */
  flushKeepalive(): void {
    let budget = KEEPALIVE_BYTES;
    const held = this.#buffer.take(Infinity, Infinity, true);
    let next = 0;
    while (next < held.length) {
      const batch: BufferedEvent[] = [];
      let bytes = 12;
      for (; next < held.length && batch.length < this.#settings.batchSize; next++) {
        const event = held[next] as BufferedEvent;
        if (bytes + event.bytes + 1 > budget) break;
        batch.push(event);
        bytes += event.bytes + 1;
      }
      if (batch.length === 0) return;
      budget -= bytes;
      void postEvents(this.#transport, batchBody(batch), true).then((outcome) =>
        this.#settle(batch, outcome),
      );
    }
  }

  /** Sends what is left, retrying as usual, for at most `closeTimeoutMs`; then stops its timers. */
  async close(): Promise<void> {
    const deadline = Date.now() + this.#settings.closeTimeoutMs;
    this.#clearTimer();
    while (this.#buffer.size > 0 && Date.now() < deadline) {
      await this.flush();
      this.#clearTimer();
      if (this.#buffer.waiting === 0) break;
      // A timer of the event loop's own (not unref'd), so a process awaiting close waits for it.
      await sleep(Math.max(0, Math.min(this.#retryAt, deadline) - Date.now()));
    }
    this.#clearTimer();
    if (this.#buffer.size > 0) {
      this.#logger.warn(
        `Flagstaff: ${this.#buffer.size} tracking events not delivered when the provider closed.`,
      );
    }
  }

  async #drain(all: boolean): Promise<void> {
    for (;;) {
      if (this.#failures > 0 && Date.now() < this.#retryAt) return this.#schedule(this.#retryAt - Date.now());
      const batch = this.#buffer.take(this.#settings.batchSize, MAX_BATCH_BYTES);
      // A batch cut short by its size in bytes is as full as it gets.
      const full = batch.length === this.#settings.batchSize || this.#buffer.waiting > batch.length;
      if (batch.length === 0 || (!all && !full)) return;
      for (const event of batch) event.inFlight = true;
      const outcome = await postEvents(this.#transport, batchBody(batch), false);
      this.#settle(batch, outcome);
      if (outcome.kind === 'retry') {
        this.#failures++;
        this.#retryAt = Date.now() + retryDelayMs(this.#failures, outcome.retryAfterMs);
        return this.#schedule(this.#retryAt - Date.now(), true);
      }
      this.#failures = 0;
    }
  }

  #settle(batch: readonly BufferedEvent[], outcome: PostOutcome): void {
    if (outcome.kind === 'retry') {
      for (const event of batch) event.inFlight = false;
      return;
    }
    const held = this.#buffer.remove(batch);
    if (outcome.kind === 'refused') {
      this.#refused += held;
      this.#logger.error(
        `Flagstaff refused ${batch.length} tracking events (HTTP ${outcome.status}): ${outcome.detail}`,
      );
      return;
    }
    const refused = Math.min(held, outcome.rejected.length);
    this.#refused += refused;
    this.#delivered += held - refused;
    const [first] = outcome.rejected;
    if (first !== undefined) {
      const name = batch[first.index]?.name ?? '?';
      this.#logger.warn(
        `Flagstaff refused ${outcome.rejected.length} of ${batch.length} tracking events; the first, "${name}": ${first.code}: ${first.message}`,
      );
    }
  }

  /** Flushes in `delayMs`, or sooner if already due sooner; `replace` puts a backoff in place of an earlier flush. */
  #schedule(delayMs: number, replace = false): void {
    const at = Date.now() + delayMs;
    if (!replace && this.#timer !== undefined && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      void this.flush();
    }, delayMs);
    // In Node, a pending flush does not keep the process alive; close() sends what is left.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }
}
