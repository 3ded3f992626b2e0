import type { AccountStore, StoredAccount } from '../../storage/store.ts';
import type { AuditRoles, VersionedKind } from '../core/versioned-write.ts';
import { publicAccount } from './session-service.ts';

/** What every write of an account names: the accounts, and the audit log its events go to. */
export type AccountRoles = AccountStore & AuditRoles;

/**
 * Accounts as the one versioned write stores and audits them, whoever writes them (admins, the
 * person, SCIM, single sign-on): their events show them without the password hash.
 */
export const ACCOUNTS: VersionedKind<StoredAccount, AccountRoles> = {
  type: 'account',
  key: (account) => account.email,
  logOf: (account) => account.projectId,
  shown: publicAccount,
  insert: (tx, account) => tx.insertAccount(account),
  update: (tx, account, expectedVersion) => tx.updateAccount(account, expectedVersion),
  remove: (tx, account) => tx.deleteAccount(account.id),
};
