import { randomBytes } from 'node:crypto';
import { requireAllEnvironments } from '../../access/access-rules.ts';
import { type Account, type Invitation, LOCAL_ACCOUNT } from '../../domain/account.ts';
import { type Role, roleRank } from '../../domain/api-key.ts';
import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { conflict, forbidden, notFound, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type {
  Page,
  PageRequest,
  ProjectStore,
  StoredAccount,
  StoredInvitation,
  WithTransactions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { checkIfMatch } from '../core/if-match.ts';
import { hashPassword } from '../core/passwords.ts';
import { hashSecret } from '../core/secrets.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { adminOfAccountScope, checkPassword, refuseLosingLastAdmin } from './account-rules.ts';
import { ACCOUNTS, type AccountRoles } from './account-writes.ts';
import { normaliseEmail, principalOfAccount, publicAccount } from './session-service.ts';

const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const INVITATION_PREFIX = 'fsi_';

export interface InviteInput {
  readonly email: string;
  readonly role: Role;
  /** Project key or id; null: organisation-wide. */
  readonly project: string | null;
}

/** What an admin may change of an account; absent fields stay. */
export interface AccountUpdate {
  readonly role?: Role | undefined;
  /** Project key or id; null: organisation-wide. */
  readonly project?: string | null | undefined;
}

export interface CreatedInvitation extends Invitation {
  /** The one-time token of the link; shown once, stored only as a hash. */
  readonly token: string;
}

export interface AcceptInput {
  readonly token: string;
  /** Needed when the invitation names no email (the first-start setup link). */
  readonly email?: string | undefined;
  readonly name: string;
  readonly password: string;
}

/** What someone holding an invitation link may learn before accepting it. */
export interface InvitationPreview {
  readonly email: string | null;
  readonly role: Role;
  readonly project: { readonly id: string; readonly key: string; readonly name: string } | null;
  readonly expiresAt: string;
}

const publicInvitation = ({ tokenHash: _, ...invitation }: StoredInvitation): Invitation => invitation;

const newInvitationToken = () => INVITATION_PREFIX + randomBytes(32).toString('base64url');

/** Dashboard accounts: invitations, joining, listing and removal, with the roles of API keys. */
export class AccountService {
  readonly #store: WithTransactions<AccountRoles & ProjectStore>;
  readonly #clock: Clock;

  constructor(store: WithTransactions<AccountRoles & ProjectStore>, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Organisation admins see every account; a project admin sees the project's own. */
  /** The account a signed-in principal is, without its password hash; undefined for API keys. */
  async me(actor: Actor): Promise<Account | undefined> {
    const { principal } = actor;
    if (principal.type !== 'user') return undefined;
    const account = await this.#store.findAccountById(principal.id);
    return account && publicAccount(account);
  }

  async list(actor: Actor, search: { q?: string | undefined }, page: PageRequest): Promise<Page<Account>> {
    const scope = this.#listScope(actor);
    const found = await this.#store.listAccounts({ projectId: scope, q: search.q }, page);
    return { ...found, items: found.items.map(publicAccount) };
  }

  async listInvitations(actor: Actor, page: PageRequest): Promise<Page<Invitation>> {
    const scope = this.#listScope(actor);
    const found = await this.#store.listInvitations(
      { projectId: scope, pendingAt: isoTime(this.#clock) },
      page,
    );
    return { ...found, items: found.items.map(publicInvitation) };
  }

  async invite(actor: Actor, input: InviteInput): Promise<CreatedInvitation> {
    // Only admins invite (#scope), and an admin limited to some environments may not hand out all.
    const projectId = await this.#scope(actor, input.project);
    requireAllEnvironments(actor.principal);
    const email = normaliseEmail(input.email);
    if (await this.#store.findAccountByEmail(email)) {
      throw conflict(`There is already an account for ${email}.`);
    }
    const token = newInvitationToken();
    const at = new Date(this.#clock());
    const invitation: StoredInvitation = {
      id: newId('inv'),
      email,
      role: input.role,
      projectId,
      tokenHash: hashSecret(token),
      invitedBy: {
        type: actor.principal.type,
        id: actor.principal.id,
        name: actor.principal.name,
      },
      createdAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + INVITATION_TTL_MS).toISOString(),
      acceptedAt: null,
    };
    await this.#store.transaction(async (tx) => {
      await tx.insertInvitation(invitation);
      await this.#audit(tx, actor, 'invitation.created', invitation, null, publicInvitation(invitation));
    });
    return { ...publicInvitation(invitation), token };
  }

  /** An invitation's audit event (invitations are not versioned: made once, used or withdrawn). */
  #audit(
    tx: AccountRoles,
    actor: Actor,
    action: `invitation.${string}`,
    invitation: StoredInvitation,
    before: Invitation | null,
    after: Invitation | null,
  ): Promise<void> {
    return recordAudit(tx, actor, invitation.projectId, {
      at: isoTime(this.#clock),
      action,
      resource: { type: 'invitation', id: invitation.id, key: invitation.email },
      before,
      after,
    });
  }

  async cancelInvitation(actor: Actor, invitationId: string): Promise<void> {
    const invitation = await this.#store.findInvitationById(invitationId);
    if (invitation === undefined) throw notFound(`No invitation with id "${invitationId}".`);
    await this.#scope(actor, invitation.projectId);
    await this.#store.transaction(async (tx) => {
      await tx.deleteInvitation(invitation.id);
      await this.#audit(tx, actor, 'invitation.deleted', invitation, publicInvitation(invitation), null);
    });
  }

  /** What the link offers, for the page that accepts it; unknown, used and expired links are all "not found". */
  async preview(token: string): Promise<InvitationPreview> {
    const invitation = await this.#usable(token);
    const project =
      invitation.projectId === null ? null : await this.#store.findProject(invitation.projectId);
    return {
      email: invitation.email,
      role: invitation.role,
      project: project ? { id: project.id, key: project.key, name: project.name } : null,
      expiresAt: invitation.expiresAt,
    };
  }

  /** Creates the account an invitation offers; the link works once. */
  async accept(input: AcceptInput, requestId: string): Promise<StoredAccount> {
    const invitation = await this.#usable(input.token);
    const email = normaliseEmail(invitation.email ?? input.email ?? '');
    if (email === '') {
      throw validationFailed('Choose the email to sign in with.', [
        { path: '/email', message: 'is required' },
      ]);
    }
    checkPassword(input.password);
    if (await this.#store.findAccountByEmail(email)) {
      throw validationFailed('That email already has an account.', [
        { path: '/email', message: 'already has an account; sign in instead' },
      ]);
    }
    const at = isoTime(this.#clock);
    const account: StoredAccount = {
      id: newId('acc'),
      email,
      name: input.name.trim() || email,
      passwordHash: await hashPassword(input.password),
      role: invitation.role,
      projectId: invitation.projectId,
      createdAt: at,
      lastLoginAt: at,
      version: 1,
      ...LOCAL_ACCOUNT,
    };
    await this.#store.transaction(async (tx) => {
      if (!(await tx.acceptInvitation(invitation.id, at))) throw usedLink();
      // The person acts: they hold the link.
      await writeVersioned(tx, { principal: principalOfAccount(account), requestId }, this.#clock, ACCOUNTS, {
        create: async () => ({
          next: account,
          action: 'account.created',
          taken: `There is already an account for ${email}.`,
          after: { ...publicAccount(account), invitationId: invitation.id },
        }),
      });
    });
    return account;
  }

  /** Removes an account and ends its sessions. The last organisation-wide admin cannot be removed. */
  async remove(actor: Actor, accountId: string): Promise<void> {
    const account = await this.#store.findAccountById(accountId);
    if (account === undefined) throw notFound(`No account with id "${accountId}".`);
    await this.#scope(actor, account.projectId);
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, ACCOUNTS, {
        load: async () => account,
        change: async (stored) => {
          await refuseLosingLastAdmin(tx, stored, null);
          return { next: null, action: 'account.deleted' };
        },
      }),
    );
  }

  /**
   * Changes an account's role and scope. The admin needs rights over both the account's scope
   * and the new one, and all environments (the account will see them all). Its sessions act
   * with the new rights from their next request: a session's principal is read per request.
   */
  async update(actor: Actor, accountId: string, input: AccountUpdate, ifMatch?: number): Promise<Account> {
    const found = await this.#store.findAccountById(accountId);
    if (found === undefined) throw notFound(`No account with id "${accountId}".`);
    await this.#scope(actor, found.projectId);
    const projectId = input.project === undefined ? found.projectId : await this.#scope(actor, input.project);
    requireAllEnvironments(actor.principal);
    checkIfMatch(ifMatch, found.version);
    const next = await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, ACCOUNTS, {
        load: async () => {
          const current = await tx.findAccountById(accountId);
          if (current === undefined) throw notFound(`No account with id "${accountId}".`);
          return current;
        },
        ifMatch,
        change: async (current) => {
          const next = {
            ...current,
            role: input.role ?? current.role,
            projectId,
            version: current.version + 1,
          };
          await refuseLosingLastAdmin(tx, current, next);
          return { next, action: 'account.updated' };
        },
      }),
    );
    return publicAccount(next);
  }

  async #usable(token: string): Promise<StoredInvitation> {
    const invitation = await this.#store.findInvitationByHash(hashSecret(token));
    if (invitation === undefined || invitation.acceptedAt !== null) throw usedLink();
    if (Date.parse(invitation.expiresAt) <= this.#clock()) throw usedLink();
    return invitation;
  }

  /** Organisation-wide accounts need an organisation admin; a project's, an admin of it. */
  #scope(actor: Actor, project: string | null): Promise<string | null> {
    return adminOfAccountScope(this.#store, actor, project);
  }

  #listScope(actor: Actor): string | null | undefined {
    const { principal } = actor;
    if (roleRank(principal.role) < roleRank('admin')) {
      throw forbidden(`Listing accounts needs the admin role; you have ${principal.role}.`);
    }
    return principal.projectId === null ? undefined : principal.projectId;
  }
}

const usedLink = () =>
  notFound('This link is unknown, has been used already or has expired. Ask an admin for a new one.');

export interface AccountBootstrap {
  /** Set when this start created the first-admin setup link: print it once. */
  readonly setupToken?: string;
  readonly createdAdmin?: string;
}

/**
 * The first dashboard account (docs/product.md §7): from FLAGSTAFF_ADMIN_EMAIL and FLAGSTAFF_ADMIN_PASSWORD
 * while no account exists, or else a one-time setup link, issued once: never while an account or
 * any invitation exists, so later starts print nothing.
 */
export async function bootstrapAccounts(
  store: WithTransactions<AccountRoles>,
  admin: { email?: string | undefined; password?: string | undefined },
  clock: Clock = systemClock,
): Promise<AccountBootstrap> {
  return store.transaction(async (tx) => {
    const accounts = await tx.listAccounts({}, { limit: 1 });
    if (accounts.items.length > 0) return {};
    const at = isoTime(clock);
    const system = { type: 'system' as const, id: 'first-start', name: 'First start' };
    if (admin.email !== undefined && admin.password !== undefined) {
      checkPassword(admin.password, 'FLAGSTAFF_ADMIN_PASSWORD');
      const email = normaliseEmail(admin.email);
      const account: StoredAccount = {
        id: newId('acc'),
        email,
        name: email.split('@')[0] || email,
        passwordHash: await hashPassword(admin.password),
        role: 'admin',
        projectId: null,
        createdAt: at,
        lastLoginAt: null,
        version: 1,
        ...LOCAL_ACCOUNT,
      };
      await writeVersioned(
        tx,
        { principal: principalOfAccount(account), requestId: 'first-start' },
        clock,
        ACCOUNTS,
        {
          create: async () => ({ next: account, action: 'account.created' }),
        },
      );
      return { createdAdmin: email };
    }
    const invitations = await tx.listInvitations({}, { limit: 1 });
    if (invitations.items.length > 0) return {};
    const token = newInvitationToken();
    await tx.insertInvitation({
      id: newId('inv'),
      email: null,
      role: 'admin',
      projectId: null,
      tokenHash: hashSecret(token),
      invitedBy: system,
      createdAt: at,
      expiresAt: new Date(Date.parse(at) + INVITATION_TTL_MS).toISOString(),
      acceptedAt: null,
    });
    return { setupToken: token };
  });
}
