import { randomBytes } from 'node:crypto';
import type { IDToken } from 'openid-client';
import { TokenBuckets } from '../../access/token-buckets.ts';
import type { MappedRole } from '../../domain/account.ts';
import { LOCAL_ACCOUNT } from '../../domain/account.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { conflict, DomainError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { DEFAULT_OIDC_SCOPES, type OidcSettings } from '../../domain/oidc-issuer.ts';
import { claimValues, matchingRoles } from '../../domain/role-mapping.ts';
import type { GroupStore, ProjectStore, StoredAccount, WithTransactions } from '../../storage/store.ts';
import { UNUSABLE_HASH } from '../core/passwords.ts';
import { hashSecret } from '../core/secrets.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { ACCOUNTS, type AccountRoles } from './account-writes.ts';
import { type GroupGrant, grantOf, heldGroupNames, NO_GRANT } from './group-roles.ts';
import { OidcRelyingParty, SignInNotVerified } from './oidc-relying-party.ts';
import { normaliseEmail, principalOfAccount, refuseDeactivated } from './session-service.ts';

/** How long the provider may take to send the person back. */
const PENDING_TTL_MS = 10 * 60 * 1000;
/** Sign-ins started per client address: each keeps a row for 10 minutes, so starting is limited. */
const STARTS_PER_ADDRESS = { capacity: 30, perSecond: 1 / 10 };

/** A sign-in that was started here and can be finished: state and nonce are single-use. */
export interface StartedSignIn {
  /** The provider's authorization URL to send the browser to. */
  readonly redirect: URL;
  /** The value of the cookie that ties the callback to this browser. */
  readonly browserToken: string;
}

/**
 * Why a sign-in is refused, worded for the person; never names their groups or a token. `reason`
 * is for the log line operators read.
 */
export class SignInRefused extends DomainError {
  readonly reason: string;
  constructor(message: string, reason = 'no group with access') {
    super('forbidden', message);
    this.reason = reason;
  }
}

/** Made over SCIM for someone who has not signed in yet: no password, bound to no subject. */
const unboundProvisioned = (account: StoredAccount) =>
  account.sso === null && account.passwordHash === UNUSABLE_HASH;

const notStartedHere = () =>
  new SignInNotVerified(
    'no pending sign-in for this state (forged, replayed, expired, or started in another browser)',
  );

/** Single sign-on through the organisation's OpenID provider: accounts bound to (issuer, sub), roles from a claim. */
export class SsoService {
  readonly #store: WithTransactions<AccountRoles & GroupStore & ProjectStore>;
  readonly #settings: OidcSettings;
  readonly #relyingParty: OidcRelyingParty;
  readonly #clock: Clock;
  readonly #starts: TokenBuckets;

  constructor(
    store: WithTransactions<AccountRoles & GroupStore & ProjectStore>,
    settings: OidcSettings,
    clock: Clock,
  ) {
    this.#store = store;
    this.#settings = settings;
    this.#relyingParty = new OidcRelyingParty(settings);
    this.#clock = clock;
    this.#starts = new TokenBuckets({ ...STARTS_PER_ADDRESS, clock });
  }

  /** Where the provider sends people back (`<FLAGSTAFF_PUBLIC_URL>/v1/auth/oidc/callback`). */
  get redirectUri(): string {
    return this.#settings.redirectUri;
  }

  /** "Sign in with <label>". */
  get label(): string {
    return this.#settings.label;
  }

  /** Starts a sign-in: where to send the browser, and the cookie that ties the way back to it. */
  async start(returnTo: string, address: string): Promise<StartedSignIn> {
    const bucket = this.#starts.take(address);
    if (!bucket.allowed) {
      throw new DomainError(
        'rate_limited',
        `Too many sign-ins started from your address. Try again in ${this.#starts.retryAfterSeconds(bucket)} seconds.`,
      );
    }
    const started = await this.#relyingParty.start();
    const browserToken = randomBytes(32).toString('base64url');
    await this.#store.insertOidcSignIn({
      stateHash: hashSecret(started.state),
      browserHash: hashSecret(browserToken),
      nonce: started.nonce,
      codeVerifier: started.codeVerifier,
      returnTo,
      expiresAt: new Date(this.#clock() + PENDING_TTL_MS).toISOString(),
    });
    return { redirect: started.url, browserToken };
  }

  /**
   * Finishes a sign-in from the provider's callback: the pending sign-in of its state (taken, so
   * it works once), from the same browser; the ID token checked; the account found by (issuer,
   * sub) or created; its role re-read from the claim and its SCIM groups. Nothing is written when
   * anything fails, except that a bound subject refused here loses its sessions and its role.
   */
  async finish(
    callback: URL,
    browserToken: string | undefined,
    requestId: string,
  ): Promise<{ account: StoredAccount; returnTo: string }> {
    const state = callback.searchParams.get('state');
    if (state === null) throw notStartedHere();
    const pending = await this.#store.takeOidcSignIn(hashSecret(state));
    if (
      pending === undefined ||
      Date.parse(pending.expiresAt) <= this.#clock() ||
      browserToken === undefined ||
      hashSecret(browserToken) !== pending.browserHash
    ) {
      throw notStartedHere();
    }
    const { rolesClaim } = this.#settings;
    const claims = await this.#relyingParty.finish(callback, { ...pending, state }, ['email', rolesClaim]);
    const bound = await this.#store.findAccountBySubject(claims.iss, claims.sub);
    try {
      return { account: await this.#signIn(claims, bound, requestId), returnTo: pending.returnTo };
    } catch (error) {
      // The provider vouched for this person and Flagstaff still refuses them: what they had ends now (decision 1890).
      if (error instanceof SignInRefused && bound !== undefined) await this.#revoke(bound, requestId);
      throw error;
    }
  }

  /** The sign-in of a person the provider vouched for: their account as it is now, or the refusal. */
  async #signIn(
    claims: IDToken,
    bound: StoredAccount | undefined,
    requestId: string,
  ): Promise<StoredAccount> {
    const email = typeof claims.email === 'string' ? normaliseEmail(claims.email) : '';
    if (email === '') {
      throw new SignInRefused(
        `${this.label} did not tell Flagstaff your email address, so no account can be made for you. Ask an admin of your organisation.`,
      );
    }
    const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : email;
    const values = claimValues(claims[this.#settings.rolesClaim]);
    const account = bound ?? (await this.#account(claims.sub, email, claims.email_verified));
    if (account !== undefined) refuseDeactivated(account);
    const held = await heldGroupNames(this.#store, account?.id, values);
    const granted = await grantOf(this.#store, this.#settings.roles, held);
    if (granted === undefined) throw this.#noAccess(claims);
    return this.#save(account, {
      issuer: claims.iss,
      subject: claims.sub,
      email,
      name,
      matched: matchingRoles(this.#settings.roles, values),
      granted,
      requestId,
    });
  }

  /**
   * No group gives access. When the provider sent no roles claim at all, in the ID token or from
   * UserInfo, the page and the log name the claim and the scopes asked: most often the provider
   * releases groups only for a scope Flagstaff was not told to ask for (Okta's and Dex's `groups`).
   */
  #noAccess(claims: IDToken): SignInRefused {
    const { rolesClaim, scopes = DEFAULT_OIDC_SCOPES } = this.#settings;
    if (claims[rolesClaim] === undefined) {
      return new SignInRefused(
        `You signed in with ${this.label}, but it did not send the "${rolesClaim}" claim that Flagstaff reads your groups from. Ask an admin to check Flagstaff's single sign-on setup (FLAGSTAFF_OIDC_SCOPES, FLAGSTAFF_OIDC_ROLES_CLAIM).`,
        `the ID token and UserInfo carry no "${rolesClaim}" claim (scopes asked: ${scopes.join(' ')})`,
      );
    }
    return new SignInRefused(
      `You signed in with ${this.label}, but you are not in any group that has access to Flagstaff. Ask an admin of your organisation to add you to one.`,
    );
  }

  /**
   * A bound subject refused at sign-in (no group gives it access any more, or no email): every
   * session of the account ends and it keeps the least role, in one write with its audit event.
   */
  async #revoke(account: StoredAccount, requestId: string): Promise<void> {
    const details = { via: 'sso', issuer: this.#settings.issuer };
    await this.#store.transaction((tx) =>
      writeVersioned(tx, { principal: principalOfAccount(account), requestId }, this.#clock, ACCOUNTS, {
        load: async () => (await tx.findAccountById(account.id)) ?? account,
        change: async (current) => {
          const sessionsEnded = await tx.deleteSessionsOfAccount(current.id);
          const next: StoredAccount = {
            ...current,
            ...NO_GRANT,
            sso: current.sso && { ...current.sso, roles: [] },
            version: current.version + 1,
          };
          return { next, action: 'account.access_revoked', details: { ...details, sessionsEnded } };
        },
        raced: () => conflict('Your account changed while you were signing in. Sign in again.'),
      }),
    );
  }

  /**
   * The account of a subject bound to none yet. An account made over SCIM (no password, bound to no one yet) is
   * bound when the provider's id for it (`externalId`) is this subject, or else when the emails
   * match and the provider says the email is verified; a password account is never taken over
   * silently (decision 1720), and an unverified email binds nothing (decision 1890).
   */
  async #account(subject: string, email: string, emailVerified: unknown): Promise<StoredAccount | undefined> {
    const provisioned = (await this.#store.findAccountsByExternalId(subject)).filter(unboundProvisioned);
    if (provisioned.length === 1) return provisioned[0];
    const sameEmail = await this.#store.findAccountByEmail(email);
    if (sameEmail === undefined) return undefined;
    if (unboundProvisioned(sameEmail)) {
      if (emailVerified === true) return sameEmail;
      throw new SignInRefused(
        `${this.label} has not verified your email address ${email}, so Flagstaff cannot tell that the account made for it is yours. Ask an admin of your organisation.`,
      );
    }
    throw new SignInRefused(
      `There is already a Flagstaff account for ${email} that does not sign in with ${this.label}. ` +
        'It is not linked automatically: an admin must remove it (or link it), then you can sign in here.',
    );
  }

  /** Creates or updates the account with this sign-in's role, in one transaction with its audit event. */
  async #save(
    found: StoredAccount | undefined,
    signIn: {
      issuer: string;
      subject: string;
      email: string;
      name: string;
      matched: readonly MappedRole[];
      granted: GroupGrant;
      requestId: string;
    },
  ): Promise<StoredAccount> {
    const at = isoTime(this.#clock);
    const sso = { issuer: signIn.issuer, subject: signIn.subject, roles: signIn.matched };
    const role = signIn.granted.role.role;
    const projectId = signIn.granted.projectId;
    return this.#store.transaction((tx) => {
      // The person proved who they are to the provider: they act, as when joining by invitation.
      const person = (account: StoredAccount) => ({
        principal: principalOfAccount(account),
        requestId: signIn.requestId,
      });
      const details = { via: 'sso', issuer: this.#settings.issuer };
      if (found === undefined) {
        const account: StoredAccount = {
          id: newId('acc'),
          email: signIn.email,
          name: signIn.name,
          passwordHash: UNUSABLE_HASH,
          role,
          projectId,
          createdAt: at,
          lastLoginAt: at,
          version: 1,
          ...LOCAL_ACCOUNT,
          sso,
        };
        return writeVersioned(tx, person(account), this.#clock, ACCOUNTS, {
          create: async () => ({ next: account, action: 'account.created', details }),
        });
      }
      // Named as the sign-in names them now (the event's actor is type, id and name).
      return writeVersioned(tx, person({ ...found, name: signIn.name }), this.#clock, ACCOUNTS, {
        load: async () => (await tx.findAccountById(found.id)) ?? found,
        change: async (current) => {
          refuseDeactivated(current);
          const next: StoredAccount = {
            ...current,
            name: signIn.name,
            role,
            projectId,
            sso,
            lastLoginAt: at,
            version: current.version + 1,
          };
          const changed =
            current.role !== next.role ||
            current.projectId !== next.projectId ||
            current.sso?.subject !== next.sso?.subject ||
            JSON.stringify(current.sso?.roles) !== JSON.stringify(next.sso?.roles);
          // A sign-in that changes nothing but its time is no event.
          return { next, action: changed ? 'account.updated' : null, details };
        },
        raced: () => conflict('Your account changed while you were signing in. Sign in again.'),
      });
    });
  }
}
