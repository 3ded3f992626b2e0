import { randomBytes } from 'node:crypto';
import { TokenBuckets } from '../../access/token-buckets.ts';
import type { Account } from '../../domain/account.ts';
import type { Principal } from '../../domain/api-key.ts';
import { type Clock, systemClock } from '../../domain/clock.ts';
import { DomainError, forbidden, unauthorized, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { AccountStore, StoredAccount, StoredSession } from '../../storage/store.ts';
import { HourlyUpkeep } from '../core/hourly-upkeep.ts';
import { UNUSABLE_HASH, verifyPassword } from '../core/passwords.ts';
import { hashSecret } from '../core/secrets.ts';

/** The rate-limit state a response reports (docs/product.md §5 headers). */
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

/** The sign-in limit of one bucket, as the response headers show it. */
function limitOf(buckets: TokenBuckets, key: string): LimitState & { retryAfterMs: number } {
  const bucket = buckets.peek(key);
  return {
    limit: buckets.capacity,
    remaining: Math.floor(bucket.tokens),
    resetSeconds: buckets.resetSeconds(bucket),
    retryAfterMs: buckets.retryAfterMs(bucket),
  };
}

export interface SessionOptions {
  /** How long a session lasts after sign-in. Default 7 days. */
  readonly ttlMs?: number;
  /** Failed sign-ins per account (by email, known or not). Default 5, one back a minute. */
  readonly perAccount?: BucketPolicy;
  /** Failed sign-ins per client address. Default 20, one back every 15 seconds. */
  readonly perAddress?: BucketPolicy;
  readonly clock?: Clock;
  /** false (FLAGSTAFF_PASSWORD_SIGN_IN=off): password sign-in is refused; `ssoLabel` names the way in instead. */
  readonly passwordSignIn?: boolean;
  readonly ssoLabel?: string | undefined;
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

/** A signed-in account acts with its role and scope, exactly like an API key would (docs/product.md §7). */
export const principalOfAccount = (account: Account): Principal => ({
  type: 'user',
  id: account.id,
  name: account.name,
  role: account.role,
  projectId: account.projectId,
  environments: null,
});

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** A deactivated account (decision 1721) signs in no way at all, whatever it proves. */
export function refuseDeactivated(account: Account): void {
  if (!account.active) {
    throw forbidden('This account has been deactivated. Ask an admin of your organisation.');
  }
}

/** Sign-in, the sessions it starts, and the rate limit that keeps passwords from being guessed. */
export class SessionService {
  readonly #store: AccountStore;
  readonly #ttlMs: number;
  readonly #perAccount: TokenBuckets;
  readonly #perAddress: TokenBuckets;
  readonly #clock: Clock;
  readonly #passwordRefusal: string | undefined;
  readonly #sweep = new HourlyUpkeep();

  constructor(store: AccountStore, options: SessionOptions = {}) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 7 * DAY_MS;
    this.#clock = options.clock ?? systemClock;
    const buckets = ({ capacity, refillMs }: BucketPolicy) =>
      new TokenBuckets({ capacity, perSecond: 1000 / refillMs, clock: this.#clock });
    this.#perAccount = buckets(options.perAccount ?? { capacity: 5, refillMs: 60_000 });
    this.#perAddress = buckets(options.perAddress ?? { capacity: 20, refillMs: 15_000 });
    this.#passwordRefusal =
      options.passwordSignIn === false
        ? `Password sign-in is turned off on this server${options.ssoLabel ? `; use "Sign in with ${options.ssoLabel}"` : ''}. API keys still work.`
        : undefined;
  }

  /** Whether people may sign in with a password (FLAGSTAFF_PASSWORD_SIGN_IN). */
  get passwordSignIn(): boolean {
    return this.#passwordRefusal === undefined;
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
    if (this.#passwordRefusal !== undefined) throw forbidden(this.#passwordRefusal);
    const now = this.#clock();
    const accountKey = normaliseEmail(email);
    this.#refuseWhenThrottled(accountKey, address);
    const account = await this.#store.findAccountByEmail(accountKey);
    // Unknown emails cost the same time as wrong passwords, so timing reveals no accounts.
    const valid = await verifyPassword(password, account?.passwordHash ?? UNUSABLE_HASH);
    if (account === undefined || !valid) {
      this.#perAccount.take(accountKey);
      this.#perAddress.take(address);
      throw unauthorized('The email or password is not right.');
    }
    this.#perAccount.reset(accountKey);
    refuseDeactivated(account);
    // Only a password set before decision 1890 can get here: the provider decides, not a password.
    if (account.sso !== null) {
      throw forbidden('This account signs in with single sign-on, not with a password.');
    }
    const at = new Date(now).toISOString();
    const signedIn: StoredAccount = { ...account, lastLoginAt: at, version: account.version + 1 };
    // A lost race means another sign-in of this account wrote its time just now: good enough.
    await this.#store.updateAccount(signedIn, account.version);
    const started = await this.start(signedIn);
    return { ...started, limit: this.#tighter(accountKey, address) };
  }

  /**
   * Checks a signed-in person's current password before a change that needs it. Wrong answers
   * draw on the same per-account and per-address budgets as sign-in, so a borrowed session
   * cannot be used to guess the password either.
   */
  async confirmPassword(account: StoredAccount, password: string, address: string): Promise<void> {
    const accountKey = normaliseEmail(account.email);
    this.#refuseWhenThrottled(accountKey, address);
    if (await verifyPassword(password, account.passwordHash)) return;
    this.#perAccount.take(accountKey);
    this.#perAddress.take(address);
    throw validationFailed('The current password is not right.', [
      { path: '/currentPassword', message: 'is not your current password' },
    ]);
  }

  /**
   * Starts a session for an account that has just proved who it is: by a password (sign-in, an
   * accepted invitation, a reset link) or, `startedBy` 'sso', through the identity provider.
   */
  async start(account: StoredAccount, startedBy: 'password' | 'sso' = 'password'): Promise<StartedSession> {
    refuseDeactivated(account);
    const now = this.#clock();
    const token = randomBytes(32).toString('base64url');
    const session: StoredSession = {
      id: newId('ses'),
      accountId: account.id,
      tokenHash: hashSecret(token),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.#ttlMs).toISOString(),
      ...(startedBy === 'sso' ? { singleSignOn: true } : {}),
    };
    await this.#store.insertSession(session);
    // Expired sessions are refused anyway; dropping them hourly keeps the table small.
    if (this.#sweep.due(now)) {
      this.#sweep.ran(now);
      await this.#store.deleteExpiredSessions(new Date(now).toISOString());
    }
    return { token, session, account: publicAccount(account) };
  }

  /**
   * At start: with password sign-in off, every session a password started ends, so turning it off
   * takes effect for people already signed in too (decision 1890). How many ended.
   */
  async endPasswordSessionsWhenOff(): Promise<number> {
    return this.passwordSignIn ? 0 : this.#store.deletePasswordSessions();
  }

  /** The account behind a session cookie's token, or undefined when it is unknown or expired. */
  authenticate(token: string): Promise<AuthenticatedSession | undefined> {
    return this.authenticateHash(hashSecret(token));
  }

  /** authenticate() for a token already hashed (the access control names credentials by hash). */
  async authenticateHash(tokenHash: string): Promise<AuthenticatedSession | undefined> {
    const session = await this.#store.findSessionByHash(tokenHash);
    if (session === undefined) return undefined;
    if (Date.parse(session.expiresAt) <= this.#clock()) {
      await this.#store.deleteSession(session.id);
      return undefined;
    }
    const account = await this.#store.findAccountById(session.accountId);
    // Deactivating deletes the sessions too; this covers a session started in the same instant.
    if (account === undefined || !account.active) return undefined;
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

  #refuseWhenThrottled(accountKey: string, address: string): void {
    const account = limitOf(this.#perAccount, accountKey);
    const byAddress = limitOf(this.#perAddress, address);
    const wait = Math.max(account.retryAfterMs, byAddress.retryAfterMs);
    if (wait > 0) {
      throw new SignInThrottled(this.#tighter(accountKey, address), Math.ceil(wait / 1000));
    }
  }

  /** The state of whichever bucket has fewer attempts left. */
  #tighter(accountKey: string, address: string): LimitState {
    const a = limitOf(this.#perAccount, accountKey);
    const b = limitOf(this.#perAddress, address);
    const { limit, remaining, resetSeconds } = a.remaining <= b.remaining ? a : b;
    return { limit, remaining, resetSeconds };
  }
}
