import { type Account, EMAIL_PATTERN, LOCAL_ACCOUNT } from '../../domain/account.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { conflict, forbidden, notFound, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { StoredAccount, StoreRoles } from '../../storage/store.ts';
import { authorizeOrganisation } from '../core/access.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { UNUSABLE_HASH } from '../core/passwords.ts';
import { refuseLosingLastAdmin } from './account-rules.ts';
import { normaliseEmail, publicAccount } from './session-service.ts';

/** What an identity provider sets of a person (SCIM's userName, name, active, externalId). */
export interface ProvisionedPerson {
  /** The email the person signs in with (SCIM userName). */
  readonly email: string;
  readonly name: string;
  readonly active: boolean;
  readonly externalId: string | null;
}

const emailPattern = new RegExp(EMAIL_PATTERN);

/**
 * Accounts as the organisation's identity provider manages them over SCIM (decision 1721):
 * created ahead of the first sign-in, renamed, deactivated (every session ends at once) and
 * deleted, each change in the audit log. Only an organisation-wide admin with every
 * environment may, since it decides who can get in at all.
 */
export class ProvisioningService {
  readonly #store: StoreRoles;
  readonly #clock: Clock;

  constructor(store: StoreRoles, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  async list(actor: Actor, offset: number, count: number): Promise<{ total: number; items: Account[] }> {
    refuseNonAdmin(actor);
    const page = await this.#store.accountsFrom(offset, count);
    return { total: page.total, items: page.items.map(publicAccount) };
  }

  async byEmail(actor: Actor, email: string): Promise<Account | undefined> {
    refuseNonAdmin(actor);
    const found = await this.#store.findAccountByEmail(normaliseEmail(email));
    return found && publicAccount(found);
  }

  async get(actor: Actor, id: string): Promise<Account> {
    refuseNonAdmin(actor);
    return publicAccount(await this.#found(id));
  }

  /**
   * An account for someone who has not signed in yet: no password, the least role. The first
   * single sign-on binds it and gives it the role the person's groups map to (decision 1720).
   */
  async create(actor: Actor, person: ProvisionedPerson): Promise<Account> {
    refuseNonAdmin(actor);
    const email = checkedEmail(person.email);
    const at = isoTime(this.#clock);
    const account: StoredAccount = {
      id: newId('acc'),
      email,
      name: person.name.trim() || email,
      passwordHash: UNUSABLE_HASH,
      role: 'evaluator',
      projectId: null,
      createdAt: at,
      lastLoginAt: null,
      version: 1,
      ...LOCAL_ACCOUNT,
      active: person.active,
      externalId: person.externalId,
    };
    await this.#store.transaction(async (tx) => {
      await tx.insertAccount(account).catch((error: unknown) => {
        if ((error as Error)?.name === 'UniqueViolation') throw takenEmail(email);
        throw error;
      });
      await this.#audit(tx, actor, 'account.created', null, account);
    });
    return publicAccount(account);
  }

  /**
   * Replaces what the provider manages (PUT), or the fields it names (PATCH: `change` holds only
   * those). Deactivating ends every session of the account in the same transaction.
   */
  async update(actor: Actor, id: string, change: Partial<ProvisionedPerson>): Promise<Account> {
    refuseNonAdmin(actor);
    return this.#store.transaction(async (tx) => {
      const current = await tx.findAccountById(id);
      if (current === undefined) throw notFoundUser(id);
      const email = change.email === undefined ? current.email : checkedEmail(change.email);
      if (email !== current.email && (await tx.findAccountByEmail(email)) !== undefined)
        throw takenEmail(email);
      const next: StoredAccount = {
        ...current,
        email,
        name: change.name === undefined ? current.name : change.name.trim() || email,
        active: change.active ?? current.active,
        externalId: change.externalId === undefined ? current.externalId : change.externalId,
        version: current.version + 1,
      };
      if (!(await tx.updateAccount(next, current.version))) {
        throw conflict('The account changed meanwhile; read it again and retry.');
      }
      const ended = next.active ? 0 : await tx.deleteSessionsOfAccount(id);
      const action =
        current.active && !next.active
          ? 'account.deactivated'
          : !current.active && next.active
            ? 'account.reactivated'
            : 'account.updated';
      await this.#audit(tx, actor, action, current, next, ended === 0 ? {} : { sessionsEnded: ended });
      return publicAccount(next);
    });
  }

  /** Deletes the account and its sessions; the last organisation-wide admin stays (409). */
  async remove(actor: Actor, id: string): Promise<void> {
    refuseNonAdmin(actor);
    await this.#store.transaction(async (tx) => {
      const account = await tx.findAccountById(id);
      if (account === undefined) throw notFoundUser(id);
      await refuseLosingLastAdmin(tx, account, null);
      await tx.deleteAccount(id);
      await this.#audit(tx, actor, 'account.deleted', account, null);
    });
  }

  async #found(id: string): Promise<StoredAccount> {
    const account = await this.#store.findAccountById(id);
    if (account === undefined) throw notFoundUser(id);
    return account;
  }

  #audit(
    tx: StoreRoles,
    actor: Actor,
    action: string,
    before: StoredAccount | null,
    after: StoredAccount | null,
    details: Readonly<Record<string, unknown>> = {},
  ): Promise<void> {
    const subject = (after ?? before) as StoredAccount;
    return recordAudit(tx, actor, subject.projectId, {
      at: isoTime(this.#clock),
      action,
      resource: { type: 'account', id: subject.id, key: subject.email },
      before: before && publicAccount(before),
      after: after && publicAccount(after),
      details: { via: 'scim', ...details },
    });
  }
}

/** SCIM hands out who may get in at all: an organisation-wide admin key with every environment. */
function refuseNonAdmin(actor: Actor): void {
  const { principal } = actor;
  if (principal.type !== 'api_key') {
    throw forbidden('SCIM takes an organisation-wide admin API key, not a dashboard session.');
  }
  authorizeOrganisation(principal, 'admin');
  if (principal.environments !== null) {
    throw forbidden('SCIM needs an admin key for every environment.');
  }
}

function checkedEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!emailPattern.test(email)) {
    throw validationFailed('userName must be the email the person signs in with.', [
      { path: '/userName', message: 'must be an email address' },
    ]);
  }
  return email;
}

const takenEmail = (email: string) => conflict(`There is already an account for ${email}.`);
const notFoundUser = (id: string) => notFound(`No user with id "${id}".`);
