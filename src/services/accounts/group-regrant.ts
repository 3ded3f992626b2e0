import type { MappedRole } from '../../domain/account.ts';
import type { Clock } from '../../domain/clock.ts';
import { matchingRoles } from '../../domain/role-mapping.ts';
import type { GroupStore, ProjectStore, StoredAccount } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { writeVersioned } from '../core/versioned-write.ts';
import { refuseLosingLastAdmin } from './account-rules.ts';
import { ACCOUNTS, type AccountRoles } from './account-writes.ts';
import { grantOf, heldGroupNames, NO_GRANT } from './group-roles.ts';

/** What a write of a group names: the groups, the accounts whose roles follow them, the projects roles name. */
export type GroupRoles = AccountRoles & GroupStore & ProjectStore;

/**
 * Re-reads the role of each account from the groups it holds now (decision 1891), in the group
 * write's transaction: an account no group gives access any more keeps the least role and loses
 * its sessions, as at a refused sign-in. The last active organisation admin stays one (409).
 * Only a group whose name (`names`: before and after a rename) FLAGSTAFF_OIDC_ROLES maps
 * decides roles: being put in any other group changes nobody's.
 */
export async function regrantMembers(
  tx: GroupRoles,
  actor: Actor,
  clock: Clock,
  mappings: readonly MappedRole[],
  accountIds: readonly string[],
  names: readonly string[],
): Promise<void> {
  if (matchingRoles(mappings, names).length === 0) return;
  const groupName = names.at(-1) ?? '';
  for (const id of accountIds) {
    const account = await tx.findAccountById(id);
    if (account !== undefined) await regrant(tx, actor, clock, mappings, account, groupName);
  }
}

async function regrant(
  tx: GroupRoles,
  actor: Actor,
  clock: Clock,
  mappings: readonly MappedRole[],
  account: StoredAccount,
  groupName: string,
): Promise<void> {
  const claimed = account.sso?.roles.map((mapped) => mapped.value) ?? [];
  const granted = await grantOf(tx, mappings, await heldGroupNames(tx, account.id, claimed));
  const next = granted === undefined ? NO_GRANT : { role: granted.role.role, projectId: granted.projectId };
  if (next.role === account.role && next.projectId === account.projectId && granted !== undefined) return;
  await writeVersioned(tx, actor, clock, ACCOUNTS, {
    load: async () => account,
    change: async (current) => {
      const changed = { ...current, ...next, version: current.version + 1 };
      await refuseLosingLastAdmin(tx, current, changed);
      const sessionsEnded = granted === undefined ? await tx.deleteSessionsOfAccount(current.id) : 0;
      const moved = current.role !== changed.role || current.projectId !== changed.projectId;
      if (!moved && sessionsEnded === 0) return { next: current, action: null };
      return {
        next: changed,
        action: granted === undefined ? 'account.access_revoked' : 'account.updated',
        details: { via: 'scim', group: groupName, sessionsEnded },
      };
    },
  });
}
