/** One event waiting to be sent: its JSON, made when it was tracked, so later changes to the context do not show. */
export interface BufferedEvent {
  readonly name: string;
  readonly json: string;
  readonly bytes: number;
  /** A request carrying it is on its way. */
  inFlight: boolean;
}

const encoder = new TextEncoder();

/** A buffered event for `event`, or undefined when it cannot be written as JSON (a cycle, a BigInt). */
export function bufferedEvent(event: { readonly name: string }): BufferedEvent | undefined {
  try {
    const json = JSON.stringify(event);
    return { name: event.name, json, bytes: encoder.encode(json).length, inFlight: false };
  } catch {
    return undefined;
  }
}

/** The request body for a batch. */
export const batchBody = (batch: readonly BufferedEvent[]): string =>
  `{"events":[${batch.map((event) => event.json).join(',')}]}`;

/**
 * Events not yet acknowledged, oldest first, at most `capacity` of them: when full, the oldest one
 * not on its way is dropped for the newest (the newest say most about the present).
 */
export class EventBuffer {
  readonly #capacity: number;
  #events: BufferedEvent[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#events.length;
  }

  /** How many events are waiting that no request carries. */
  get waiting(): number {
    return this.#events.reduce((count, event) => count + (event.inFlight ? 0 : 1), 0);
  }

  /** Adds `event`; resolves with how many events were dropped to make room (0 or 1). */
  push(event: BufferedEvent): number {
    let dropped = 0;
    if (this.#events.length >= this.#capacity) {
      const oldest = this.#events.findIndex((held) => !held.inFlight);
      // Everything held is on its way: the newest event is the one that does not fit.
      if (oldest === -1) return 1;
      this.#events.splice(oldest, 1);
      dropped = 1;
    }
    this.#events.push(event);
    return dropped;
  }

  /**
   * The oldest events (those on their way too when `resend`), at most `count` and `bytes` of body;
   * always at least one when any is waiting, so that no event blocks the buffer.
   */
  take(count: number, bytes: number, resend = false): BufferedEvent[] {
    const batch: BufferedEvent[] = [];
    let size = 12;
    for (const event of this.#events) {
      if (batch.length >= count) break;
      if (event.inFlight && !resend) continue;
      if (batch.length > 0 && size + event.bytes + 1 > bytes) break;
      batch.push(event);
      size += event.bytes + 1;
    }
    return batch;
  }

  /** Forgets the events of `batch` (acknowledged or refused); resolves with how many were still held. */
  remove(batch: readonly BufferedEvent[]): number {
    const gone = new Set(batch);
    const before = this.#events.length;
    this.#events = this.#events.filter((event) => !gone.has(event));
    return before - this.#events.length;
  }
}
