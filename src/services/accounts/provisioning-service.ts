import { authorizeOrganisation } from '../../access/access-rules.ts';
import { type Account, EMAIL_PATTERN, LOCAL_ACCOUNT } from '../../domain/account.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { conflict, forbidden, notFound, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { AccountStore, StoredAccount, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { UNUSABLE_HASH } from '../core/passwords.ts';
import { type Change, type Creation, writeVersioned } from '../core/versioned-write.ts';
import { refuseLosingLastAdmin } from './account-rules.ts';
import { ACCOUNTS, type AccountRoles } from './account-writes.ts';
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
  readonly #store: WithTransactions<AccountRoles>;
  readonly #clock: Clock;

  constructor(store: WithTransactions<AccountRoles>, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  async list(actor: Actor, offset: number, count: number): Promise<{ total: number; items: Account[] }> {
    refuseNonAdmin(actor);
    const page = await this.#store.accountsFrom(offset, count);
    return { total: page.total, items: page.items.map(publicAccount) };
  }

  /** The accounts a provider looks up by userName (the email) or by its own id (externalId). */
  async find(actor: Actor, by: { userName: string } | { externalId: string }): Promise<Account[]> {
    refuseNonAdmin(actor);
    if ('externalId' in by)
      return (await this.#store.findAccountsByExternalId(by.externalId)).map(publicAccount);
    const found = await this.#store.findAccountByEmail(normaliseEmail(by.userName));
    return found === undefined ? [] : [publicAccount(found)];
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
    await this.#write(actor, () => ({
      create: async () => ({
        next: account,
        action: 'account.created',
        taken: takenEmail(email).message,
        details: VIA_SCIM,
      }),
    }));
    return publicAccount(account);
  }

  /**
   * Replaces what the provider manages (PUT), or the fields it names (PATCH: `change` holds only
   * those). Deactivating ends every session of the account in the same transaction.
   */
  async update(actor: Actor, id: string, change: Partial<ProvisionedPerson>): Promise<Account> {
    refuseNonAdmin(actor);
    const next = await this.#write(actor, (tx) => ({
      load: () => this.#found(id, tx),
      change: async (current) => {
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
        await refuseLosingLastAdmin(tx, current, next);
        const ended = next.active ? 0 : await tx.deleteSessionsOfAccount(id);
        const action =
          current.active && !next.active
            ? 'account.deactivated'
            : !current.active && next.active
              ? 'account.reactivated'
              : 'account.updated';
        return { next, action, details: ended === 0 ? VIA_SCIM : { ...VIA_SCIM, sessionsEnded: ended } };
      },
      raced: () => conflict('The account changed meanwhile; read it again and retry.'),
    }));
    return publicAccount(next);
  }

  /** Deletes the account and its sessions; the last organisation-wide admin stays (409). */
  async remove(actor: Actor, id: string): Promise<void> {
    refuseNonAdmin(actor);
    await this.#write(actor, (tx) => ({
      load: () => this.#found(id, tx),
      change: async (account) => {
        await refuseLosingLastAdmin(tx, account, null);
        return { next: null, action: 'account.deleted', details: VIA_SCIM };
      },
    }));
  }

  async #found(id: string, store: AccountStore = this.#store): Promise<StoredAccount> {
    const account = await store.findAccountById(id);
    if (account === undefined) throw notFoundUser(id);
    return account;
  }

  /** A write of an account, in a transaction of its own. */
  #write(
    actor: Actor,
    write: (tx: AccountRoles) => Creation<StoredAccount> | Change<StoredAccount>,
  ): Promise<StoredAccount> {
    return this.#store.transaction((tx) => writeVersioned(tx, actor, this.#clock, ACCOUNTS, write(tx)));
  }
}

/** What every SCIM write's audit event says of where it came from. */
const VIA_SCIM = { via: 'scim' } as const;

/** SCIM hands out who may get in at all: an organisation-wide admin key with every environment. */
export function refuseNonAdmin(actor: Actor): void {
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
