// How long a batch waits before it is sent again (decision 1930).

/** The first wait after a failure, doubled after each further one, up to MAX_DELAY_MS. */
export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 30_000;

/**
 * The wait before attempt `attempt + 1` (`attempt` ≥ 1 failures so far): exponential with "equal
 * jitter", between half the exponential step and the whole, so that clients a failure hit at once
 * do not come back at once; never shorter than the server's Retry-After.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number {
  const step = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  const jittered = step / 2 + random() * (step / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
