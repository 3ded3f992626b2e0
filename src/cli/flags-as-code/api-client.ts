// The CLI's only door to Flagstaff: HTTP to a running server, as one API key, so every write has
// that key's role, scope, rate limit and audit trail (docs/flags-as-code.md).

/** An answer the server refused, with its problem+json body when it sent one. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: readonly { path: string; message: string }[];

  constructor(
    status: number,
    code: string,
    message: string,
    errors: readonly { path: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.errors = errors;
  }
}

export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

export interface ApiClientOptions {
  readonly server: string;
  readonly key: string;
  /** Longest wait a 429's Retry-After may ask for before the CLI gives up (seconds). */
  readonly maxRetryAfter?: number;
  /** How many 429s in a row one request survives. */
  readonly maxRetries?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The next page's URL from a `Link: <…>; rel="next"` header, resolved against the server. */
export function nextPageOf(link: string | null, base: string): string | undefined {
  if (link === null) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return new URL(match[1] as string, base).toString();
  }
  return undefined;
}

export class ApiClient {
  readonly server: string;
  readonly #key: string;
  readonly #maxRetryAfter: number;
  readonly #maxRetries: number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: ApiClientOptions) {
    this.server = options.server.replace(/\/+$/, '');
    this.#key = options.key;
    this.#maxRetryAfter = options.maxRetryAfter ?? 120;
    this.#maxRetries = options.maxRetries ?? 10;
    this.#sleep = options.sleep ?? pause;
  }

  /** One request; a 429 is retried after its Retry-After; any other error status throws ApiError. */
  async request<T>(
    method: string,
    path: string,
    options: { body?: unknown; ifMatch?: number } = {},
  ): Promise<ApiAnswer<T>> {
    const url = path.startsWith('http') ? path : `${this.server}${path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#key}`,
      accept: 'application/json',
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.ifMatch !== undefined) headers['if-match'] = `"${options.ifMatch}"`;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        });
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        throw new ApiError(
          0,
          'unreachable',
          `cannot reach ${this.server}: ${cause ?? (error as Error).message}`,
        );
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      if (response.status === 429 && attempt < this.#maxRetries) {
        const wait = Number(response.headers.get('retry-after') ?? '1');
        if (Number.isFinite(wait) && wait <= this.#maxRetryAfter) {
          await this.#sleep(Math.max(wait, 0.05) * 1000);
          continue;
        }
      }
      if (response.status >= 400) throw problemOf(response.status, body);
      return { status: response.status, body: body as T, headers: response.headers };
    }
  }

  /**
   * Every item of a list, page after page, following Link rel="next"; each page is handed to
   * `each` as it arrives (what it keeps is the caller's), and `progress` hears how far the list is
   * read when it spans more than one page (its total from X-Total-Count, where the list counts).
   */
  async list<T>(
    path: string,
    options: { readonly each?: (item: T) => void; readonly progress?: Progress } = {},
  ): Promise<T[]> {
    const items: T[] = [];
    const each = options.each ?? ((item: T) => items.push(item));
    // The largest page the API gives, unless the caller chose one: fewer requests against the rate limit.
    const limit = /[?&]limit=/.test(path) ? '' : `${path.includes('?') ? '&' : '?'}limit=1000`;
    let next: string | undefined = `${this.server}${path}${limit}`;
    let read = 0;
    while (next !== undefined) {
      const answer: ApiAnswer<T[]> = await this.request<T[]>('GET', next);
      for (const item of answer.body) each(item);
      read += answer.body.length;
      next = nextPageOf(answer.headers.get('link'), this.server);
      const total = Number(answer.headers.get('x-total-count') ?? Number.NaN);
      if (read > answer.body.length || next !== undefined)
        options.progress?.(read, Number.isFinite(total) ? total : undefined);
    }
    return items;
  }
}

/** Told how much of a long read or write is done, of how much (when known). */
export type Progress = (done: number, total: number | undefined) => void;

function problemOf(status: number, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const problem = body as { code?: string; detail: string; errors?: { path: string; message: string }[] };
    return new ApiError(status, problem.code ?? String(status), problem.detail, problem.errors ?? []);
  }
  return new ApiError(status, String(status), `HTTP ${status}${typeof body === 'string' ? `: ${body}` : ''}`);
}
