import { Redis } from 'ioredis';

/** Where the leases report Redis coming and going (pino's shape). */
export interface LeaseLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface Lease {
  /** Tokens granted (0 when the shared bucket is empty). */
  readonly granted: number;
  /** Tokens left in the shared bucket after this grant. */
  readonly remaining: number;
}

/**
 * Where budgets shared by several processes lease their tokens (SharedTokenBuckets): Redis
 * between nodes (decision 0206), the primary process between the workers of one (decision 1988).
 */
export interface TokenLeases {
  /** Whether leases can be asked for now; while not, budgets are local. */
  readonly available: boolean;
  /** Takes up to `want` tokens from the shared bucket `key`; rejects when there is no answer. */
  lease(key: string, capacity: number, perSecond: number, now: number, want: number): Promise<Lease>;
  close(): Promise<void>;
}

/**
 * One token bucket per key in Redis, refilled continuously like the local ones; a call takes up
 * to `want` tokens at once and says how many it got. The clock is the caller's (nodes keep
 * theirs in sync for expiry anyway); a clock behind the bucket's never refills it backwards.
 */
const LEASE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = capacity; at = now end
if now > at then tokens = math.min(capacity, tokens + (now - at) * per_ms); at = now end
local granted = math.max(0, math.min(want, math.floor(tokens)))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return {granted, tostring(tokens)}
`;

/**
 * How long a lease may take before Redis counts as unreachable: well under a request's budget
 * and a second's refill, so a hung Redis (a partition: the connection open, nothing answered)
 * means per-node limits within a fraction of a second (docs/decisions/1761).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** While Redis is away over a connection that stays open, it is asked (PING) this often whether it is back. */
const PROBE_MS = 1000;
/** Probes that time out in a row before the connection is dropped and made again. */
const PROBES_BEFORE_RECONNECT = 3;

/**
 * The Redis side of rate limits shared by all nodes (FLAGSTAFF_REDIS_URL, decision 0206).
 * Commands fail at once while Redis is unreachable (no offline queue) and after
 * REDIS_COMMAND_TIMEOUT_MS when it does not answer, so a caller falls back to per-node limits
 * instead of waiting; the client reconnects by itself, with backoff.
 */
export class RedisLeases implements TokenLeases {
  readonly #client: Redis;
  readonly #log: LeaseLog;
  #available = false;
  #probe: NodeJS.Timeout | undefined;
  #failedProbes = 0;

  constructor(url: string, log: LeaseLog) {
    this.#log = log;
    this.#client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    this.#client.on('ready', () => this.#found());
    // Handled, or the client's errors would end the process; one line when Redis goes away.
    this.#client.on('error', (error) => this.#lost(error));
    this.#client.on('close', () => this.#lost(undefined));
  }

  /** Whether leases can be asked for now; false until connected and while Redis is away. */
  get available(): boolean {
    return this.#available;
  }

  /** Takes up to `want` tokens from the shared bucket `key`. Rejects when Redis does not answer. */
  async lease(key: string, capacity: number, perSecond: number, now: number, want: number): Promise<Lease> {
    try {
      const [granted, remaining] = (await this.#client.eval(
        LEASE_SCRIPT,
        1,
        key,
        capacity,
        perSecond / 1000,
        now,
        want,
      )) as [number, string];
      return { granted: Number(granted), remaining: Number(remaining) };
    } catch (error) {
      this.#lost(error);
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#probe);
    this.#client.disconnect();
  }

  #found(): void {
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#failedProbes = 0;
    if (this.#available) return;
    this.#available = true;
    this.#log.info({}, 'Redis reachable: rate limits are shared by every node');
  }

  #lost(error: unknown): void {
    if (!this.#available) return;
    this.#available = false;
    this.#log.warn(
      { err: error instanceof Error ? error.message : undefined },
      'Redis unreachable: rate limits are per node until it answers again',
    );
    // A closed connection comes back through ioredis' reconnects ('ready'); one that stays open
    // but silent (a partition) never does by itself: ask it, and after a few silences reconnect.
    this.#probe ??= setInterval(() => this.#ask(), PROBE_MS).unref();
  }

  #ask(): void {
    const silent = () => {
      if (++this.#failedProbes < PROBES_BEFORE_RECONNECT) return;
      this.#failedProbes = 0;
      this.#client.disconnect(true);
    };
    // 'connect': connected, but its ready check went unanswered — silent too.
    if (this.#client.status === 'connect') silent();
    if (this.#client.status !== 'ready') return;
    this.#client.ping().then(() => this.#found(), silent);
  }
}
