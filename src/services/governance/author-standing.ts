import { COMMAND_LINE_OPERATOR, type Principal } from '../../domain/api-key.ts';
import type { Person } from '../../domain/change-request.ts';
import { conflict } from '../../domain/errors.ts';
import { principalOf } from '../../plane/key-registry.ts';
import type { AccountStore, ApiKeyStore } from '../../storage/store.ts';
import { principalOfAccount } from '../accounts/session-service.ts';

/** What re-checking an author reads: their key or their account. */
export type AuthorRoles = ApiKeyStore & AccountStore;

/**
 * The author of a pending change as they stand now (decision 1852): a scheduled change runs,
 * and a change request is applied, only while its author could still make it. A revoked or
 * expired key, or a deactivated or deleted account, refuses it (409, saying why); otherwise the
 * author acts with their rights of now (a role lowered since counts). The operator at the
 * command line has no account and stands as they were: null. A change request records its
 * author as a person only, and older ones name people without an account (seeded, imported),
 * so for a request a missing account is not taken to be a deleted one.
 */
export async function authorNow(
  store: AuthorRoles,
  author: Person,
  now: number,
  /** What an author with no account is: gone (a scheduled change: deleted since), or as they were (a request's). */
  noAccount: 'gone' | 'as-they-were' = 'gone',
): Promise<Principal | null> {
  if (author.type === 'api_key') {
    const key = await store.findApiKeyById(author.id);
    if (key === undefined || key.revokedAt !== null) {
      throw conflict(`The API key "${author.name}" that made this change has been revoked.`);
    }
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) {
      throw conflict(`The API key "${author.name}" that made this change has expired.`);
    }
    return principalOf(key);
  }
  if (author.id === COMMAND_LINE_OPERATOR) return null;
  const account = await store.findAccountById(author.id);
  if (account === undefined && noAccount === 'as-they-were') return null;
  if (account === undefined)
    throw conflict(`The account of ${author.name}, who made this change, was deleted.`);
  if (!account.active)
    throw conflict(`The account of ${author.name}, who made this change, has been deactivated.`);
  return principalOfAccount(account);
}
