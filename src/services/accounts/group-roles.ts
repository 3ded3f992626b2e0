import type { MappedRole } from '../../domain/account.ts';
import { highestRole, matchingRoles } from '../../domain/role-mapping.ts';
import type { GroupStore, ProjectStore } from '../../storage/store.ts';

/** The role and scope an account's groups give it: the one mapping chosen, its project resolved. */
export interface GroupGrant {
  readonly role: MappedRole;
  readonly projectId: string | null;
}

/**
 * The group names an account holds (decision 1891): the SCIM groups it is a member of, and the
 * values of its sign-in's roles claim that are no SCIM group's name. A name the provider pushes
 * as a group is decided by that group's members, so removing someone over SCIM holds at once,
 * whatever their last ID token said.
 */
export async function heldGroupNames(
  store: GroupStore,
  accountId: string | undefined,
  claimValues: readonly string[],
): Promise<string[]> {
  const provisioned = new Set(await store.provisionedGroupNames(claimValues));
  const groups = accountId === undefined ? [] : await store.groupNamesOfAccount(accountId);
  return [...new Set([...claimValues.filter((value) => !provisioned.has(value)), ...groups])];
}

/**
 * What FLAGSTAFF_OIDC_ROLES gives for these names: the highest matching role (decision 1720),
 * with its project key resolved; a mapping to a project that does not exist grants nothing.
 * Undefined: no access at all.
 */
export async function grantOf(
  store: ProjectStore,
  mappings: readonly MappedRole[],
  names: readonly string[],
): Promise<GroupGrant | undefined> {
  const usable: GroupGrant[] = [];
  for (const mapping of matchingRoles(mappings, names)) {
    if (mapping.project === null) usable.push({ role: mapping, projectId: null });
    else {
      const project = await store.findProject(mapping.project);
      if (project !== undefined) usable.push({ role: mapping, projectId: project.id });
    }
  }
  const best = highestRole(usable.map((u) => u.role));
  return usable.find((u) => u.role === best);
}

/** What an account keeps when no group gives it access: the least role, organisation-wide. */
export const NO_GRANT = { role: 'evaluator', projectId: null } as const;
