import type { Clock } from '../domain/clock.ts';

/** One bucket: `tokens` as of `at` (ms). Mutated in place, so taking a token allocates nothing. */
export interface Bucket {
  tokens: number;
  at: number;
  /** Whether the last `take` got a token. */
  allowed: boolean;
}

export interface TokenBucketOptions {
  /** The most tokens a bucket holds: the burst allowed after a quiet spell. */
  readonly capacity: number;
  /** Tokens added per second, continuously. */
  readonly perSecond: number;
  readonly clock: Clock;
}

/** A budget of tokens per key: local to the node (`TokenBuckets`) or shared through Redis. */
export interface RateLimiter {
  /** The most tokens a key holds (RateLimit-Limit). */
  readonly capacity: number;
  readonly perSecond: number;
  /** Takes a token for `key` if there is one; `allowed` says whether it did. Synchronous: no I/O. */
  take(key: string): Bucket;
  resetSeconds(bucket: Bucket): number;
  retryAfterSeconds(bucket: Bucket): number;
}

/** Above this many buckets, full ones (idle long enough to have refilled) are dropped, at most once a second. */
const SWEEP_ABOVE = 10_000;

/**
 * Token buckets keyed by a string (an API key id, a client address). Taking a token is one Map
 * lookup and a little arithmetic: no timer, no allocation once the key has a bucket.
 */
export class TokenBuckets implements RateLimiter {
  readonly capacity: number;
  readonly perSecond: number;
  readonly #perMs: number;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();
  #sweptAt = 0;

  constructor(options: TokenBucketOptions) {
    this.capacity = options.capacity;
    this.perSecond = options.perSecond;
    this.#perMs = options.perSecond / 1000;
    this.#clock = options.clock;
  }

  /** Refills `key`'s bucket to now and takes a token if there is one; `allowed` says whether it did. */
  take(key: string): Bucket {
    const bucket = this.peek(key);
    bucket.allowed = bucket.tokens >= 1;
    if (bucket.allowed) bucket.tokens -= 1;
    return bucket;
  }

  /** Refills `key`'s bucket to now without taking from it. */
  peek(key: string): Bucket {
    const now = this.#clock();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= SWEEP_ABOVE) this.#sweep(now);
      bucket = { tokens: this.capacity, at: now, allowed: true };
      this.#buckets.set(key, bucket);
      return bucket;
    }
    if (now > bucket.at) {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.#perMs);
      bucket.at = now;
    }
    return bucket;
  }

  /** Forgets `key`'s bucket: it starts full again (a sign-in that succeeded). */
  reset(key: string): void {
    this.#buckets.delete(key);
  }

  /** Milliseconds until the bucket holds a token again; 0 when it holds one now. */
  retryAfterMs(bucket: Bucket): number {
    return bucket.tokens >= 1 ? 0 : ((1 - bucket.tokens) / this.perSecond) * 1000;
  }

  /** Whole seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds(bucket: Bucket): number {
    return Math.ceil((this.capacity - bucket.tokens) / this.perSecond);
  }

  /** Whole seconds until the bucket holds a token again (Retry-After); at least 1. */
  retryAfterSeconds(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  get size(): number {
    return this.#buckets.size;
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < 1000) return;
    this.#sweptAt = now;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.at) * this.#perMs >= this.capacity) this.#buckets.delete(key);
    }
  }
}
