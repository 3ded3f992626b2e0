import { authorizeOrganisation } from '../../access/access-rules.ts';
import { type Account, PASSWORD_MIN } from '../../domain/account.ts';
import { conflict, validationFailed } from '../../domain/errors.ts';
import type { AccountStore, ProjectStore } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { accessProject } from '../core/project-access.ts';

/** The one password rule (decision 0601): at least PASSWORD_MIN characters. */
export function checkPassword(password: string, path = '/password'): void {
  if ([...password].length < PASSWORD_MIN) {
    throw validationFailed('The password is too short.', [
      { path, message: `must be at least ${PASSWORD_MIN} characters` },
    ]);
  }
}

/**
 * Who may manage accounts of a scope: organisation-wide accounts need an organisation admin, a
 * project's an admin of that project. Answers the scope's project id (null: organisation-wide).
 */
export async function adminOfAccountScope(
  store: ProjectStore,
  actor: Actor,
  project: string | null,
): Promise<string | null> {
  if (project === null) {
    authorizeOrganisation(actor.principal, 'admin');
    return null;
  }
  return (await accessProject(store, actor, project, 'admin')).id;
}

/** An account that can act as an organisation admin: a deactivated one cannot sign in at all. */
const isOrganisationAdmin = (account: Pick<Account, 'role' | 'projectId' | 'active'>) =>
  account.role === 'admin' && account.projectId === null && account.active;

/**
 * The organisation keeps at least one active organisation-wide admin account: removing,
 * demoting or deactivating the last one is a 409. Call inside the write's transaction (the
 * admins' rows are locked there).
 */
export async function refuseLosingLastAdmin(
  tx: AccountStore,
  account: Account,
  next: Pick<Account, 'role' | 'projectId' | 'active'> | null,
): Promise<void> {
  if (!isOrganisationAdmin(account) || (next !== null && isOrganisationAdmin(next))) return;
  const admins = await tx.organisationAdminIds();
  if (admins.filter((id) => id !== account.id).length === 0) {
    throw conflict(
      'This is the last organisation-wide admin account; make another account an organisation admin first.',
    );
  }
}
