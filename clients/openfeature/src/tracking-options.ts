// The tracking settings a Flagstaff provider takes beside the official provider's own options.

/** Where the package reports what it dropped or the server refused; OpenFeature's Logger fits. */
export interface TrackingLogger {
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** `fetch` or a function like it (OFREP's `fetchImplementation`). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TrackingOptions {
  /** Events per request, at most 1,000 (the server's limit). Default 100. */
  readonly batchSize?: number;
  /** How long an event may wait for its batch to fill, in milliseconds. Default 5,000. */
  readonly flushIntervalMs?: number;
  /** Events held while the server cannot take them; past it the oldest are dropped and counted. Default 10,000. */
  readonly maxBufferSize?: number;
  /** How long closing the provider may spend sending what is left, in milliseconds. Default 5,000. */
  readonly closeTimeoutMs?: number;
  /** Flag+variant+targeting key combinations the exposure hook remembers having sent. Default 10,000. */
  readonly maxExposuresRemembered?: number;
}

/** Every tracking setting, with the defaults filled in and the server's limits applied. */
export interface TrackingSettings {
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  readonly maxBufferSize: number;
  readonly closeTimeoutMs: number;
  readonly maxExposuresRemembered: number;
}

/** The server takes at most 1,000 events and 1 MiB a request (SPEC §13). */
export const MAX_BATCH_SIZE = 1000;
/** A normal request stays well under the server's 1 MiB. */
export const MAX_BATCH_BYTES = 512 * 1024;
/** Browsers allow 64 KiB of keepalive request bodies in flight per page: what a page being hidden may send. */
export const KEEPALIVE_BYTES = 60 * 1024;

const whole = (value: number | undefined, fallback: number, least: number, most = Infinity) =>
  Math.min(most, Math.max(least, Math.floor(Number.isFinite(value) ? (value as number) : fallback)));

/** The settings for `options`: missing or unusable numbers take their default, the rest are held to the limits. */
export function trackingSettings(options: TrackingOptions = {}): TrackingSettings {
  const batchSize = whole(options.batchSize, 100, 1, MAX_BATCH_SIZE);
  return {
    batchSize,
    flushIntervalMs: whole(options.flushIntervalMs, 5_000, 0),
    // At least one batch, so that a full buffer can still be sent whole.
    maxBufferSize: whole(options.maxBufferSize, 10_000, batchSize),
    closeTimeoutMs: whole(options.closeTimeoutMs, 5_000, 0),
    maxExposuresRemembered: whole(options.maxExposuresRemembered, 10_000, 1),
  };
}

/** The default logger: warnings and errors on the console, as OpenFeature's own default does. */
export const consoleLogger: TrackingLogger = {
  warn: (...args) => console.warn(...args),
  error: (...args) => console.error(...args),
};
