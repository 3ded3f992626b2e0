import { randomBytes } from 'node:crypto';
import { TokenBuckets } from '../../access/token-buckets.ts';
import type { MappedRole } from '../../domain/account.ts';
import { LOCAL_ACCOUNT } from '../../domain/account.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { conflict, DomainError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { OidcSettings } from '../../domain/oidc-issuer.ts';
import { claimValues, highestRole, matchingRoles } from '../../domain/role-mapping.ts';
import type { ProjectStore, StoredAccount, WithTransactions } from '../../storage/store.ts';
import { UNUSABLE_HASH } from '../core/passwords.ts';
import { hashSecret } from '../core/secrets.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { ACCOUNTS, type AccountRoles } from './account-writes.ts';
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

/** Why a sign-in is refused, worded for the person; never names claims, groups or tokens. */
export class SignInRefused extends DomainError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

const notStartedHere = () =>
  new SignInNotVerified(
    'no pending sign-in for this state (forged, replayed, expired, or started in another browser)',
  );

/** Single sign-on through the organisation's OpenID provider: accounts bound to (issuer, sub), roles from a claim. */
export class SsoService {
  readonly #store: WithTransactions<AccountRoles & ProjectStore>;
  readonly #settings: OidcSettings;
  readonly #relyingParty: OidcRelyingParty;
  readonly #clock: Clock;
  readonly #starts: TokenBuckets;

  constructor(store: WithTransactions<AccountRoles & ProjectStore>, settings: OidcSettings, clock: Clock) {
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
   * sub) or created; its role re-read from the claim. Nothing is written when anything fails.
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
    const email = typeof claims.email === 'string' ? normaliseEmail(claims.email) : '';
    if (email === '') {
      throw new SignInRefused(
        `${this.label} did not tell Flagstaff your email address, so no account can be made for you. Ask an admin of your organisation.`,
      );
    }
    const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : email;
    const matched = matchingRoles(this.#settings.roles, claimValues(claims[rolesClaim]));
    const account = await this.#account(claims.iss, claims.sub, email, claims.email_verified);
    if (account !== undefined) refuseDeactivated(account);
    const granted = await this.#grant(matched);
    if (granted === undefined) {
      throw new SignInRefused(
        `You signed in with ${this.label}, but you are not in any group that has access to Flagstaff. Ask an admin of your organisation to add you to one.`,
      );
    }
    const signedIn = await this.#save(account, {
      issuer: claims.iss,
      subject: claims.sub,
      email,
      name,
      matched,
      granted,
      requestId,
    });
    return { account: signedIn, returnTo: pending.returnTo };
  }

  /**
   * The account of this subject. An account with the same email is bound only when it has no
   * password and is bound to no one yet (SCIM made it); a password account is never taken over
   * silently (decision 1720).
   */
  async #account(
    issuer: string,
    subject: string,
    email: string,
    emailVerified: unknown,
  ): Promise<StoredAccount | undefined> {
    const bound = await this.#store.findAccountBySubject(issuer, subject);
    if (bound !== undefined) return bound;
    const sameEmail = await this.#store.findAccountByEmail(email);
    if (sameEmail === undefined) return undefined;
    // Provisioned over SCIM (no password, bound to no one): the same provider made it for this person.
    if (sameEmail.sso === null && sameEmail.passwordHash === UNUSABLE_HASH && emailVerified !== false) {
      return sameEmail;
    }
    throw new SignInRefused(
      `There is already a Flagstaff account for ${email} that does not sign in with ${this.label}. ` +
        'It is not linked automatically: an admin must remove it (or link it), then you can sign in here.',
    );
  }

  /** The one role the matching mappings give, with the project keys resolved; unknown projects grant nothing. */
  async #grant(
    matched: readonly MappedRole[],
  ): Promise<{ role: MappedRole; projectId: string | null } | undefined> {
    const usable: { mapping: MappedRole; projectId: string | null }[] = [];
    for (const mapping of matched) {
      if (mapping.project === null) usable.push({ mapping, projectId: null });
      else {
        const project = await this.#store.findProject(mapping.project);
        if (project !== undefined) usable.push({ mapping, projectId: project.id });
      }
    }
    const best = highestRole(usable.map((u) => u.mapping));
    const chosen = usable.find((u) => u.mapping === best);
    return chosen && { role: chosen.mapping, projectId: chosen.projectId };
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
      granted: { role: MappedRole; projectId: string | null };
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
