/** One server-sent event as a client sees it. */
export interface SseEvent {
  readonly id?: string;
  readonly data: string;
}

/** A stream read over fetch, so the test sees exactly what a client would (headers and events). */
export interface SseConnection {
  readonly status: number;
  readonly headers: Headers;
  /** Every event with data received so far, in order. */
  readonly events: SseEvent[];
  /** Comment lines received so far (heartbeats). */
  readonly comments: string[];
  /** The last `id` the server set, as EventSource would send it back as Last-Event-ID. */
  lastEventId(): string | undefined;
  /** Resolves once the server ends the stream. */
  readonly ended: Promise<void>;
  /** Resolves once `count` events have arrived; rejects after `timeoutMs`. */
  waitForEvents(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves once the server has set an event id (it does first thing). */
  waitForId(timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let lastId: string | undefined;
  let waiters: (() => void)[] = [];
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  const ended = (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let data: string | undefined;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id:')) lastId = line.slice(3).trim();
            else if (line.startsWith('data:'))
              data = (data === undefined ? '' : `${data}\n`) + line.slice(5).trim();
          }
          if (data !== undefined) events.push({ id: lastId, data });
          notify();
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Aborted by close().
    }
    notify();
  })();
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    lastEventId: () => lastId,
    ended,
    async waitForEvents(count, timeoutMs = 10_000) {
      await until(() => events.length >= count, `${count} events`, timeoutMs);
      return events.slice(0, count);
    },
    async waitForId(timeoutMs = 10_000) {
      await until(() => lastId !== undefined, 'an event id', timeoutMs);
      return lastId as string;
    },
    close: () => abort.abort(),
  };

  async function until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      waiters = [];
    }
  }
}

/** Polls `condition` until it holds; throws after 15 s (a shared machine can be slow, never this slow). */
export async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
