import { randomBytes } from 'node:crypto';
import { requireAllEnvironments } from '../../access/access-rules.ts';
import type { PasswordReset } from '../../domain/account.ts';
import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { conflict, forbidden, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type {
  ProjectStore,
  StoredAccount,
  StoredPasswordReset,
  WithTransactions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { hashPassword } from '../core/passwords.ts';
import { hashSecret } from '../core/secrets.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { adminOfAccountScope, checkPassword } from './account-rules.ts';
import { ACCOUNTS, type AccountRoles } from './account-writes.ts';
import { principalOfAccount, type SessionService } from './session-service.ts';

const RESET_TTL_MS = 24 * 60 * 60 * 1000;
const RESET_PREFIX = 'fsr_';

export interface PasswordChange {
  readonly currentPassword: string;
  readonly newPassword: string;
}

export interface CreatedPasswordReset extends PasswordReset {
  /** The link's one-time token: answered once, stored only as a hash, never logged. */
  readonly token: string;
}

/** What the holder of a reset link may see before choosing a password. */
export interface PasswordResetPreview {
  readonly email: string;
  readonly name: string;
  readonly expiresAt: string;
}

const publicReset = ({ tokenHash: _, ...reset }: StoredPasswordReset): PasswordReset => reset;

/**
 * An account bound to single sign-on has no password path at all (decision 1890): a password
 * would let the person in without the provider, which re-reads their groups at every sign-in.
 */
function refuseSingleSignOn(account: StoredAccount): void {
  if (account.sso !== null) {
    throw conflict(
      `${account.email} signs in with single sign-on: its identity provider decides who may sign in, so it has no password to set or reset.`,
    );
  }
}

const unusableLink = () =>
  notFound('This reset link is unknown, has been used already or has expired. Ask an admin for a new one.');

/**
 * Passwords after sign-up (decision 1004): people change their own, proving the
 * current one; admins hand out one-time reset links. Either way the account's other sessions end.
 */
export class PasswordService {
  readonly #store: WithTransactions<AccountRoles & ProjectStore>;
  readonly #sessions: SessionService;
  readonly #clock: Clock;

  constructor(
    store: WithTransactions<AccountRoles & ProjectStore>,
    sessions: SessionService,
    clock: Clock = systemClock,
  ) {
    this.#store = store;
    this.#sessions = sessions;
    this.#clock = clock;
  }

  /** A reset link's event: who, which account, and what happened; never a secret. */
  #audit(
    tx: AccountRoles,
    actor: Actor,
    account: StoredAccount,
    action: string,
    details: Readonly<Record<string, unknown>>,
  ): Promise<void> {
    return recordAudit(tx, actor, account.projectId, {
      at: isoTime(this.#clock),
      action,
      resource: { type: 'account', id: account.id, key: account.email },
      before: null,
      after: null,
      details,
    });
  }

  /**
   * Changes the signed-in person's own password. `sessionId`: the session that asks, which
   * stays; every other session of the account ends. `address` for the guessing budget.
   */
  async changeOwn(actor: Actor, input: PasswordChange, sessionId: string, address: string): Promise<void> {
    const account = await this.#signedInAccount(actor);
    refuseSingleSignOn(account);
    checkPassword(input.newPassword, '/newPassword');
    await this.#sessions.confirmPassword(account, input.currentPassword, address);
    const passwordHash = await hashPassword(input.newPassword);
    await this.#store.transaction((tx) =>
      this.#setPassword(tx, actor, account, passwordHash, 'account.password_changed', {}, sessionId),
    );
  }

  /** A one-time link for the account to choose a new password; earlier unused links stop working. */
  async createResetLink(actor: Actor, accountId: string): Promise<CreatedPasswordReset> {
    const account = await this.#store.findAccountById(accountId);
    if (account === undefined) throw notFound(`No account with id "${accountId}".`);
    await adminOfAccountScope(this.#store, actor, account.projectId);
    // The link hands out everything the account may do, every environment included.
    requireAllEnvironments(actor.principal);
    refuseSingleSignOn(account);
    const token = RESET_PREFIX + randomBytes(32).toString('base64url');
    const at = this.#clock();
    const { type, id, name } = actor.principal;
    const reset: StoredPasswordReset = {
      id: newId('pwr'),
      accountId: account.id,
      tokenHash: hashSecret(token),
      createdBy: { type, id, name },
      createdAt: new Date(at).toISOString(),
      expiresAt: new Date(at + RESET_TTL_MS).toISOString(),
      usedAt: null,
    };
    await this.#store.transaction(async (tx) => {
      await tx.deletePendingPasswordResets(account.id);
      await tx.insertPasswordReset(reset);
      await this.#audit(tx, actor, account, 'account.reset_link_created', {
        resetId: reset.id,
        expiresAt: reset.expiresAt,
      });
    });
    return { ...publicReset(reset), token };
  }

  /** Whose password a link resets; unknown, used and expired links are all "not found". */
  async previewReset(token: string): Promise<PasswordResetPreview> {
    const { account, reset } = await this.#usable(token);
    return { email: account.email, name: account.name, expiresAt: reset.expiresAt };
  }

  /** Sets the password a link offers and ends every session of the account; the link works once. */
  async reset(token: string, password: string, requestId: string): Promise<StoredAccount> {
    const { account, reset } = await this.#usable(token);
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    return this.#store.transaction(async (tx) => {
      if (!(await tx.usePasswordReset(reset.id, new Date(this.#clock()).toISOString()))) throw unusableLink();
      await tx.deletePendingPasswordResets(account.id);
      // The person acts: they hold the link, as an invited person holds theirs (account.created).
      const person = { principal: principalOfAccount(account), requestId };
      await this.#setPassword(tx, person, account, passwordHash, 'account.password_reset', {
        resetId: reset.id,
      });
      return { ...account, passwordHash, version: account.version + 1 };
    });
  }

  /**
   * Stores the new hash (moving the version), ends the account's sessions but `keep`, and records
   * `action` with how many ended: the event shows no account, so no hash ever reaches the log.
   */
  #setPassword(
    tx: AccountRoles,
    actor: Actor,
    account: StoredAccount,
    passwordHash: string,
    action: string,
    details: Readonly<Record<string, unknown>>,
    keep?: string,
  ): Promise<StoredAccount> {
    return writeVersioned(tx, actor, this.#clock, ACCOUNTS, {
      // Compare-and-set against a fresh read: a concurrent role change keeps its own fields.
      load: async () => {
        const current = await tx.findAccountById(account.id);
        if (current === undefined) throw notFound(`No account with id "${account.id}".`);
        return current;
      },
      change: async (current) => {
        const sessionsEnded = await tx.deleteSessionsOfAccount(account.id, keep);
        return {
          next: { ...current, passwordHash, version: current.version + 1 },
          action,
          before: null,
          after: null,
          details: { ...details, sessionsEnded },
        };
      },
    });
  }

  async #signedInAccount(actor: Actor): Promise<StoredAccount> {
    const { principal } = actor;
    const account = principal.type === 'user' ? await this.#store.findAccountById(principal.id) : undefined;
    if (account === undefined) throw forbidden('Only a signed-in account has a password.');
    return account;
  }

  async #usable(token: string): Promise<{ account: StoredAccount; reset: StoredPasswordReset }> {
    const reset = await this.#store.findPasswordResetByHash(hashSecret(token));
    if (reset === undefined || reset.usedAt !== null) throw unusableLink();
    if (Date.parse(reset.expiresAt) <= this.#clock()) throw unusableLink();
    const account = await this.#store.findAccountById(reset.accountId);
    if (account === undefined) throw unusableLink();
    // A link made before the account's first single sign-on bound it.
    refuseSingleSignOn(account);
    return { account, reset };
  }
}
