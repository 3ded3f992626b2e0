import type { Clock } from '../domain/clock.ts';
import { type Bucket, TokenBuckets } from './token-buckets.ts';

/** Ten failures at once, then one a second per address (decision 0202). */
export const FAILED_AUTHENTICATION_LIMITS = { burst: 10, perSecond: 1 } as const;

/** A credential that authenticated recently still passes an address over its failure budget. */
const TRUSTED_FOR_MS = 10 * 60 * 1000;

/**
 * Failed authentications per client address (decision 0202), shared by every way in (HTTP and
 * flagd's gRPC sync): each failure takes a token from the address's bucket; an address without
 * tokens is refused before its credential is checked, so guessing stays slow — unless that
 * credential authenticated within the last 10 minutes (clients behind one proxy share an address).
 */
export class FailedAuthentications {
  readonly buckets: TokenBuckets;
  readonly #trusted = new Map<string, number>();
  readonly #clock: Clock;

  constructor(limits: { readonly burst: number; readonly perSecond: number }, clock: Clock) {
    this.buckets = new TokenBuckets({ capacity: limits.burst, perSecond: limits.perSecond, clock });
    this.#clock = clock;
  }

  /** Whether `credential` (a secret's hash) authenticated recently: no address budget applies to it. */
  trusts(credential: string): boolean {
    return (this.#trusted.get(credential) ?? 0) >= this.#clock();
  }

  /** The address's bucket when it is over its budget and `credential` (a secret's hash) is not trusted; else undefined. */
  refuses(address: string, credential: string): Bucket | undefined {
    if (this.trusts(credential)) return undefined;
    const bucket = this.buckets.peek(address);
    return bucket.tokens < 1 ? bucket : undefined;
  }

  /** Counts a failure against the address; `allowed` false means it is now over its budget. */
  failed(address: string): Bucket {
    return this.buckets.take(address);
  }

  /** Remembers a credential that authenticated, so its address's failures never lock it out. */
  succeeded(credential: string): void {
    const now = this.#clock();
    if ((this.#trusted.get(credential) ?? 0) >= now + TRUSTED_FOR_MS / 2) return;
    // Bounded: expired entries go when the map grows.
    if (this.#trusted.size >= 10_000) {
      for (const [key, until] of this.#trusted) if (until < now) this.#trusted.delete(key);
    }
    this.#trusted.set(credential, now + TRUSTED_FOR_MS);
  }
}
