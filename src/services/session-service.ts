import { randomBytes } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import type { Principal } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';
import type { AccountStore, StoredAccount, StoredSession } from '../storage/store.ts';
import { newId } from './ids.ts';
import { UNUSABLE_HASH, verifyPassword } from './passwords.ts';
import { hashSecret } from './secrets.ts';

/** The rate-limit state a response reports (SPEC §5 headers). */
export interface LimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
}

/** Too many failed sign-ins for this account or from this address. */
export class SignInThrottled extends DomainError {
  readonly state: LimitState;
  readonly retryAfterSeconds: number;

  constructor(state: LimitState, retryAfterSeconds: number) {
    super('rate_limited', `Too many failed sign-ins. Try again in ${retryAfterSeconds} seconds.`);
    this.state = state;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface BucketPolicy {
  /** Attempts allowed at once. */
  readonly capacity: number;
  /** One attempt comes back every this many milliseconds. */
  readonly refillMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets by name, in memory: one node's view, which is enough to make guessing slow. */
class Buckets {
  readonly #policy: BucketPolicy;
  readonly #buckets = new Map<string, Bucket>();

  constructor(policy: BucketPolicy) {
    this.#policy = policy;
  }

  #current(name: string, now: number): Bucket {
    const { capacity, refillMs } = this.#policy;
    const bucket = this.#buckets.get(name) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) / refillMs);
    bucket.at = now;
    return bucket;
  }

  state(name: string, now: number): LimitState & { retryAfterMs: number } {
    const { capacity, refillMs } = this.#policy;
    const { tokens } = this.#current(name, now);
    return {
      limit: capacity,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil(((capacity - tokens) * refillMs) / 1000),
      retryAfterMs: tokens >= 1 ? 0 : (1 - tokens) * refillMs,
    };
  }

  take(name: string, now: number): void {
    const bucket = this.#current(name, now);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.#buckets.set(name, bucket);
    if (this.#buckets.size > 10_000) this.#prune(now);
  }

  reset(name: string): void {
    this.#buckets.delete(name);
  }

  /** Forgets buckets that have refilled: they say nothing a fresh one would not. */
  #prune(now: number): void {
    for (const [name, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.at) / this.#policy.refillMs >= this.#policy.capacity)
        this.#buckets.delete(name);
    }
  }
}

export interface SessionOptions {
  /** How long a session lasts after sign-in. Default 7 days. */
  readonly ttlMs?: number;
  /** Failed sign-ins per account (by email, known or not). Default 5, one back a minute. */
  readonly perAccount?: BucketPolicy;
  /** Failed sign-ins per client address. Default 20, one back every 15 seconds. */
  readonly perAddress?: BucketPolicy;
  readonly clock?: () => Date;
}

export interface StartedSession {
  /** The cookie's value: shown to the browser once, stored only as a hash. */
  readonly token: string;
  readonly session: StoredSession;
  readonly account: Account;
}

export interface AuthenticatedSession {
  readonly principal: Principal;
  readonly account: Account;
  readonly session: StoredSession;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const publicAccount = ({ passwordHash: _, ...account }: StoredAccount): Account => account;

/** A signed-in account acts with its role and scope, exactly like an API key would (SPEC §7). */
export const principalOfAccount = (account: Account): Principal => ({
  type: 'user',
  id: account.id,
  name: account.name,
  role: account.role,
  projectId: account.projectId,
  environments: null,
});

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** Sign-in, the sessions it starts, and the rate limit that keeps passwords from being guessed. */
export class SessionService {
  readonly #store: AccountStore;
  readonly #ttlMs: number;
  readonly #perAccount: Buckets;
  readonly #perAddress: Buckets;
  readonly #clock: () => Date;
  #lastSweep = 0;

  constructor(store: AccountStore, options: SessionOptions = {}) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 7 * DAY_MS;
    this.#perAccount = new Buckets(options.perAccount ?? { capacity: 5, refillMs: 60_000 });
    this.#perAddress = new Buckets(options.perAddress ?? { capacity: 20, refillMs: 15_000 });
    this.#clock = options.clock ?? (() => new Date());
  }

  /**
   * Checks the password and starts a session. Refused while the account or the address has
   * used up its failed attempts, whether or not the password is right, so guessing stays slow.
   */
  async signIn(
    email: string,
    password: string,
    address: string,
  ): Promise<StartedSession & { limit: LimitState }> {
    const now = this.#clock().getTime();
    const accountKey = normaliseEmail(email);
    this.#refuseWhenThrottled(accountKey, address, now);
    const account = await this.#store.findAccountByEmail(accountKey);
    // Unknown emails cost the same time as wrong passwords, so timing reveals no accounts.
    const valid = await verifyPassword(password, account?.passwordHash ?? UNUSABLE_HASH);
    if (account === undefined || !valid) {
      this.#perAccount.take(accountKey, now);
      this.#perAddress.take(address, now);
      throw new DomainError('unauthorized', 'The email or password is not right.');
    }
    this.#perAccount.reset(accountKey);
    const at = new Date(now).toISOString();
    const signedIn: StoredAccount = { ...account, lastLoginAt: at, version: account.version + 1 };
    // A lost race means another sign-in of this account wrote its time just now: good enough.
    await this.#store.updateAccount(signedIn, account.version);
    const started = await this.start(signedIn);
    return { ...started, limit: this.#tighter(accountKey, address, now) };
  }

  /** Starts a session for an account that has just proved who it is (sign-in, accepted invitation). */
  async start(account: StoredAccount): Promise<StartedSession> {
    const now = this.#clock();
    const token = randomBytes(32).toString('base64url');
    const session: StoredSession = {
      id: newId('ses'),
      accountId: account.id,
      tokenHash: hashSecret(token),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.#ttlMs).toISOString(),
    };
    await this.#store.insertSession(session);
    // Expired sessions are refused anyway; dropping them hourly keeps the table small.
    if (now.getTime() - this.#lastSweep > 60 * 60 * 1000) {
      this.#lastSweep = now.getTime();
      await this.#store.deleteExpiredSessions(now.toISOString());
    }
    return { token, session, account: publicAccount(account) };
  }

  /** The account behind a session cookie's token, or undefined when it is unknown or expired. */
  authenticate(token: string): Promise<AuthenticatedSession | undefined> {
    return this.authenticateHash(hashSecret(token));
  }

  /** authenticate() for a token already hashed (the access control names credentials by hash). */
  async authenticateHash(tokenHash: string): Promise<AuthenticatedSession | undefined> {
    const session = await this.#store.findSessionByHash(tokenHash);
    if (session === undefined) return undefined;
    if (Date.parse(session.expiresAt) <= this.#clock().getTime()) {
      await this.#store.deleteSession(session.id);
      return undefined;
    }
    const account = await this.#store.findAccountById(session.accountId);
    if (account === undefined) return undefined;
    const visible = publicAccount(account);
    return { principal: principalOfAccount(visible), account: visible, session };
  }

  /** Ends the session the token belongs to; unknown tokens are ignored. */
  async signOut(token: string): Promise<void> {
    const session = await this.#store.findSessionByHash(hashSecret(token));
    if (session !== undefined) await this.#store.deleteSession(session.id);
  }

  get ttlSeconds(): number {
    return Math.floor(this.#ttlMs / 1000);
  }

  #refuseWhenThrottled(accountKey: string, address: string, now: number): void {
    const account = this.#perAccount.state(accountKey, now);
    const byAddress = this.#perAddress.state(address, now);
    const wait = Math.max(account.retryAfterMs, byAddress.retryAfterMs);
    if (wait > 0) {
      throw new SignInThrottled(this.#tighter(accountKey, address, now), Math.ceil(wait / 1000));
    }
  }

  /** The state of whichever bucket has fewer attempts left. */
  #tighter(accountKey: string, address: string, now: number): LimitState {
    const a = this.#perAccount.state(accountKey, now);
    const b = this.#perAddress.state(address, now);
    const { limit, remaining, resetSeconds } = a.remaining <= b.remaining ? a : b;
    return { limit, remaining, resetSeconds };
  }
}
