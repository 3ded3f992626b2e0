import { EDGE_ROLE, type Principal, type Role, roleRank } from '../domain/api-key.ts';
import { forbidden, noProjectAccess } from '../domain/errors.ts';
import type { Project } from '../domain/project.ts';

/**
 * Throws `forbidden` unless the principal may act with `role` in the project (and, when named,
 * the environment). Runs before any lookup that could reveal whether a resource exists.
 */
export function authorize(principal: Principal, projectId: string, role: Role, environment?: string): void {
  if (principal.projectId !== null && principal.projectId !== projectId) throw noProjectAccess();
  authorizeRole(principal, role);
  if (environment !== undefined) authorizeEnvironments(principal, [environment]);
}

/** Throws `forbidden` unless the principal is an organisation-wide key with at least `role`. */
export function authorizeOrganisation(principal: Principal, role: Role): void {
  if (principal.projectId !== null) throw forbidden('This action needs an organisation-wide key.');
  authorizeRole(principal, role);
}

export function authorizeRole(principal: Principal, role: Role): void {
  // The edge role is asked for by name: no rung of the ladder includes it (decision 1980).
  if (role === EDGE_ROLE ? principal.role !== EDGE_ROLE : roleRank(principal.role) < roleRank(role)) {
    throw forbidden(`This action needs the ${role} role; the key has ${principal.role}.`);
  }
}

/**
 * Throws `forbidden` unless the principal covers every named environment; `'all'` means the
 * request changes every environment of the project, which only a key bound to all may do.
 */
export function authorizeEnvironments(principal: Principal, environments: readonly string[] | 'all'): void {
  const own = principal.environments;
  if (own === null) return;
  if (environments === 'all') {
    throw forbidden('This change affects every environment; the key is limited to some.');
  }
  for (const environment of environments) {
    if (!own.includes(environment)) {
      throw forbidden(`This API key has no access to the environment "${environment}".`);
    }
  }
}

/** Flag-wide and environment-set changes reach every environment, so a key limited to some may not make them. */
export function requireAllEnvironments(principal: Principal): void {
  authorizeEnvironments(principal, 'all');
}

/**
 * A key cannot give (by creating a key) or take away (by revoking one) more power than its own:
 * a higher role, or environments it does not cover.
 */
export function refuseMorePower(
  principal: Principal,
  role: Role,
  environments: readonly string[] | null,
  verb: 'create' | 'revoke' | 'read the sync credentials of',
): void {
  if (roleRank(role) > roleRank(principal.role)) {
    throw forbidden(`A ${principal.role} key cannot ${verb} a key with the ${role} role.`);
  }
  if (principal.environments !== null) {
    const own = principal.environments;
    if (environments === null || environments.some((e) => !own.includes(e))) {
      throw forbidden(`A key cannot ${verb} a key for environments it has no access to.`);
    }
  }
}

/** What a request acts on, as far as it is known before the request is validated. */
export type AccessTarget =
  /** Nothing in particular: the use case narrows what it returns to what the key may see. */
  | { readonly kind: 'any' }
  /** The installation itself (creating projects, organisation-wide keys): organisation-wide keys only. */
  | { readonly kind: 'organisation' }
  /**
   * A project by id or key; undefined: the key's own (evaluation with a project key).
   * `evaluation`: resolved through the node's cache of references, since only the id is needed.
   */
  | { readonly kind: 'project'; readonly idOrKey: string | undefined; readonly evaluation?: boolean }
  /** A project by the id a signed token names: checked without a lookup (a stream opens without the database). */
  | { readonly kind: 'project-id'; readonly id: string }
  | { readonly kind: 'flag'; readonly id: string }
  | { readonly kind: 'segment'; readonly id: string }
  | { readonly kind: 'api-key'; readonly id: string }
  | { readonly kind: 'change-request'; readonly id: string }
  /** The signed-in person's own account (their password): API keys have none. */
  | { readonly kind: 'own-account' };

/** The environments a request touches: some by name, `'all'`, or none in particular (undefined). */
export type EnvironmentScope = readonly string[] | 'all' | undefined;

/**
 * What the access check established about a request, for its use case to act on without
 * looking up or checking again. A project or resource that does not exist, or that a project
 * key may not see, leaves `projectId` unset: the use case answers 404 after validation.
 */
export interface Grant {
  /** The project the request acts in: the one it names, its resource's, or the key's own. */
  readonly projectId?: string;
  /** That project as read for this request, when the check read it. */
  readonly project?: Project;
}
