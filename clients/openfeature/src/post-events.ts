import { parseRetryAfter } from './retry-delay.ts';
import type { FetchLike } from './tracking-options.ts';

/** One event the server refused, by its place in the batch (SPEC §13). */
export interface Rejection {
  readonly index: number;
  readonly code: string;
  readonly message: string;
}

/** What became of one request: kept (but for the events refused one by one), refused whole, or to send again. */
export type PostOutcome =
  | { readonly kind: 'delivered'; readonly rejected: readonly Rejection[] }
  | { readonly kind: 'refused'; readonly status: number; readonly detail: string }
  | { readonly kind: 'retry'; readonly retryAfterMs: number | undefined; readonly why: string };

/** Where and how batches go: the provider's base URL, headers and fetch. */
export interface EventTransport {
  readonly url: string;
  readonly headers: () => Promise<Headers>;
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
}

/** The server is overloaded or failing, or a proxy timed out: the same batch may succeed later. */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

async function problemDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown };
    return String(problem.detail ?? problem.title ?? text);
  } catch {
    return text.slice(0, 200);
  }
}

async function rejectionsOf(response: Response): Promise<readonly Rejection[]> {
  try {
    const answer = (await response.json()) as { rejected?: unknown };
    return Array.isArray(answer.rejected) ? (answer.rejected as Rejection[]) : [];
  } catch {
    // A 2xx whose body is lost or not JSON still means the batch was kept.
    return [];
  }
}

/**
 * POSTs one batch to /v1/events and says what became of it. Never throws: a network error, a
 * timeout or a failing headers factory is a `retry`, like a 5xx or 429.
 */
export async function postEvents(
  transport: EventTransport,
  body: string,
  keepalive: boolean,
): Promise<PostOutcome> {
  let response: Response;
  try {
    const headers = await transport.headers();
    headers.set('content-type', 'application/json');
    response = await transport.fetch(transport.url, {
      method: 'POST',
      headers,
      body,
      keepalive,
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
  } catch (error) {
    return { kind: 'retry', retryAfterMs: undefined, why: String(error) };
  }
  if (response.ok) return { kind: 'delivered', rejected: await rejectionsOf(response) };
  if (retryable(response.status)) {
    await response.body?.cancel().catch(() => {});
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    return { kind: 'retry', retryAfterMs, why: `HTTP ${response.status}` };
  }
  return { kind: 'refused', status: response.status, detail: await problemDetail(response) };
}
