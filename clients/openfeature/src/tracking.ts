import { EventSender, type TrackingStats } from './event-sender.ts';
import { ExposureHook } from './exposure-hook.ts';
import type { EventTransport } from './post-events.ts';
import { toWireEvent } from './tracking-event.ts';
import {
  consoleLogger,
  type FetchLike,
  type TrackingLogger,
  type TrackingOptions,
  trackingSettings,
} from './tracking-options.ts';

type HeaderList = HeadersInit | undefined;

/** The parts of the official providers' options that say where requests go and with which headers. */
export interface ConnectionOptions {
  readonly baseUrl: string;
  readonly headers?: HeaderList;
  readonly headersFactory?: () => HeaderList | Promise<HeaderList>;
  readonly fetchImplementation?: unknown;
  readonly timeoutMs?: number;
}

/** What the application sees of its provider's tracking: the counts, and a flush to call before it exits. */
export interface TrackingHandle {
  stats(): TrackingStats;
  flush(): Promise<void>;
}

/** The transport to POST /v1/events beside OFREP: the same base URL, headers (the API key and scope headers) and fetch. */
export function transportFor(options: ConnectionOptions): EventTransport {
  const fetchImplementation =
    (options.fetchImplementation as FetchLike | undefined) ?? globalThis.fetch.bind(globalThis);
  return {
    url: `${options.baseUrl.replace(/\/+$/, '')}/v1/events`,
    fetch: fetchImplementation,
    timeoutMs: options.timeoutMs ?? 10_000,
    async headers() {
      const headers = new Headers(options.headers);
      const more = await options.headersFactory?.();
      for (const [name, value] of new Headers(more)) headers.set(name, value);
      return headers;
    },
  };
}

/** The sender, the exposure hook and `track()` of one provider. */
export class Tracking implements TrackingHandle {
  readonly sender: EventSender;
  readonly exposureHook: ExposureHook;

  constructor(
    connection: ConnectionOptions,
    options: TrackingOptions = {},
    logger: TrackingLogger = consoleLogger,
  ) {
    const settings = trackingSettings(options);
    this.sender = new EventSender(transportFor(connection), settings, logger);
    this.exposureHook = new ExposureHook(
      (event) => this.sender.enqueue(event),
      settings.maxExposuresRemembered,
    );
  }

  stats(): TrackingStats {
    return this.sender.stats();
  }

  flush(): Promise<void> {
    return this.sender.flush();
  }

  /** OpenFeature's `Provider.track`: buffers the event; never throws, never waits. */
  track(
    name: string,
    context: Readonly<Record<string, unknown>>,
    details?: Readonly<Record<string, unknown>>,
  ): void {
    try {
      this.sender.enqueue(toWireEvent(name, context, details));
    } catch {
      // track() must not break the application (OpenFeature specification §6).
    }
  }
}
