import type { Clock } from '../domain/clock.ts';
import type { TokenLeases } from './redis-leases.ts';
import { type Bucket, type RateLimiter, TokenBuckets } from './token-buckets.ts';

/** Per key and node: tokens leased from the shared bucket and not spent yet (negative: spent on credit). */
interface LeaseState {
  tokens: number;
  leasing: boolean;
  /** The shared bucket was empty: no lease is asked for before this time (ms). */
  emptyUntil: number;
  /** Tokens left in the shared bucket at the last lease, for RateLimit-Remaining. */
  remaining: number;
  readonly bucket: Bucket;
}

export interface SharedTokenBucketOptions {
  /** The Redis key prefix, naming the budget (`evaluation`, `management`). */
  readonly name: string;
  readonly perSecond: number;
  readonly clock: Clock;
  readonly leases: TokenLeases;
}

/** Each lease asks for this share of a second's budget: 2 %, so 2 nodes hold at most ±4 % unspent or on credit. */
const LEASE_SHARE = 0.02;

/**
 * A budget shared by every node through Redis (docs/product.md §8, decision 0206), without a Redis round
 * trip on any request's path: each node spends tokens it leased in batches, asks for the next
 * batch in the background when half of one is left, and may run up to one batch on credit
 * while a lease is on its way (repaid from the next one). While Redis is unreachable, the node
 * falls back to a local bucket of the full budget: per-node limits. The workers of one node
 * (FLAGSTAFF_WORKERS) share their budgets the same way, leasing from the primary (decision 1988).
 */
export class SharedTokenBuckets implements RateLimiter {
  readonly capacity: number;
  readonly perSecond: number;
  readonly #name: string;
  readonly #clock: Clock;
  readonly #leases: TokenLeases;
  readonly #batch: number;
  readonly #local: TokenBuckets;
  readonly #states = new Map<string, LeaseState>();

  constructor(options: SharedTokenBucketOptions) {
    this.capacity = options.perSecond;
    this.perSecond = options.perSecond;
    this.#name = options.name;
    this.#clock = options.clock;
    this.#leases = options.leases;
    this.#batch = Math.max(1, Math.round(options.perSecond * LEASE_SHARE));
    this.#local = new TokenBuckets({
      capacity: options.perSecond,
      perSecond: options.perSecond,
      clock: options.clock,
    });
  }

  take(key: string): Bucket {
    if (!this.#leases.available) return this.#local.take(key);
    const now = this.#clock();
    let state = this.#states.get(key);
    if (state === undefined) {
      state = {
        tokens: 0,
        leasing: false,
        emptyUntil: 0,
        remaining: this.capacity,
        bucket: { tokens: 0, at: now, allowed: true },
      };
      this.#states.set(key, state);
    }
    const allowed = state.tokens >= 1 || (now >= state.emptyUntil && state.tokens > -this.#batch);
    if (allowed) state.tokens -= 1;
    if (state.tokens < this.#batch / 2 && !state.leasing && now >= state.emptyUntil)
      this.#lease(key, state, now);
    const bucket = state.bucket;
    bucket.allowed = allowed;
    bucket.at = now;
    bucket.tokens = Math.max(0, state.remaining + state.tokens);
    return bucket;
  }

  resetSeconds(bucket: Bucket): number {
    return Math.ceil((this.capacity - bucket.tokens) / this.perSecond);
  }

  retryAfterSeconds(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  #lease(key: string, state: LeaseState, now: number): void {
    state.leasing = true;
    // Enough for a batch and whatever was spent on credit.
    const want = Math.ceil(this.#batch - state.tokens);
    this.#leases
      .lease(`flagstaff:ratelimit:${this.#name}:${key}`, this.capacity, this.perSecond, now, want)
      .then(
        ({ granted, remaining }) => {
          state.tokens += granted;
          state.remaining = remaining;
          // Empty: ask again once a batch has had time to refill, not on every request.
          if (granted < want) state.emptyUntil = now + (this.#batch * 1000) / this.perSecond;
        },
        // Redis (or the primary) went away: the leases noted it, and take() uses the local buckets meanwhile.
        () => undefined,
      )
      .finally(() => {
        state.leasing = false;
      });
  }
}
