import type { Principal } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';
import type { ChangeSafetyStores } from '../storage/store.ts';

/**
 * How many approvals a change to `environments` of the project needs from `principal`: the most
 * any of them requires, or 0 for admins (they may write directly, SPEC §10).
 */
export async function approvalsNeeded(
  store: ChangeSafetyStores,
  principal: Principal,
  projectId: string,
  environments: readonly string[],
): Promise<number> {
  if (principal.role === 'admin' || environments.length === 0) return 0;
  const policies = await store.approvals.requiredApprovals(projectId);
  return Math.max(0, ...environments.map((key) => policies.get(key) ?? 0));
}

/**
 * Refuses a write that would skip the approvals an environment requires (a restore, a scheduled
 * change by a non-admin): those go through a change request, or an admin.
 */
export async function refuseToSkipApprovals(
  store: ChangeSafetyStores,
  principal: Principal,
  projectId: string,
  environments: readonly string[],
  what: string,
): Promise<void> {
  if ((await approvalsNeeded(store, principal, projectId, environments)) > 0) {
    throw new DomainError(
      'forbidden',
      `${what} would change an environment that requires approvals: request the change with PATCH, or ask an admin.`,
    );
  }
}
