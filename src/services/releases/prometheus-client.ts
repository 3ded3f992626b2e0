/** Why a Prometheus query gave no figure: the guard cannot be read, and the plan holds. */
export class PrometheusUnreadable extends Error {
  override name = 'PrometheusUnreadable';
}

/** The instant queries a Prometheus guard asks (the HTTP API's `/api/v1/query`). */
export interface PrometheusQueries {
  /** Where it asks, for messages. */
  readonly url: string;
  /** The query's one value now; throws PrometheusUnreadable when there is none (no data, an error, no answer). */
  value(query: string): Promise<number>;
}

interface QueryAnswer {
  readonly status?: string;
  readonly error?: string;
  readonly data?: { readonly resultType?: string; readonly result?: unknown };
}

/** The value of an instant query's answer: a scalar, or a vector of one sample (several are summed). */
function numberOf(answer: QueryAnswer, query: string): number {
  const { resultType, result } = answer.data ?? {};
  if (resultType === 'scalar' && Array.isArray(result)) return Number(result[1]);
  if (resultType === 'vector' && Array.isArray(result)) {
    const samples = result as readonly { value: [number, string] }[];
    if (samples.length === 0) throw new PrometheusUnreadable(`no data for ${query}`);
    return samples.reduce((sum, sample) => sum + Number(sample.value[1]), 0);
  }
  throw new PrometheusUnreadable(`${query} gives a ${resultType ?? 'strange'} result, not one number`);
}

/** Prometheus's HTTP query API (FLAGSTAFF_PROMETHEUS_URL), each query given `timeoutMs` (5 s) to answer. */
export class PrometheusClient implements PrometheusQueries {
  readonly url: string;
  readonly #timeoutMs: number;

  constructor(url: string, options: { readonly timeoutMs?: number } = {}) {
    this.url = url.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 5000;
  }

  async value(query: string): Promise<number> {
    let answer: QueryAnswer;
    try {
      const response = await fetch(`${this.url}/api/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      answer = (await response.json()) as QueryAnswer;
    } catch (error) {
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `did not answer within ${this.#timeoutMs / 1000} s`
          : `did not answer (${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)})`;
      throw new PrometheusUnreadable(`Prometheus at ${this.url} ${reason}`);
    }
    if (answer.status !== 'success') {
      throw new PrometheusUnreadable(`Prometheus refused ${query}: ${answer.error ?? 'no reason given'}`);
    }
    const value = numberOf(answer, query);
    if (!Number.isFinite(value)) throw new PrometheusUnreadable(`no number for ${query} (${value})`);
    return value;
  }
}
