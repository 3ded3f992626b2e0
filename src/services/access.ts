import { type Principal, type Role, roleRank } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';

const forbidden = (detail: string) => new DomainError('forbidden', detail);

/**
 * Throws `forbidden` unless the principal may act with `role` in the project (and, when named,
 * the environment). Runs before any lookup that could reveal whether a resource exists.
 */
export function authorize(principal: Principal, projectId: string, role: Role, environment?: string): void {
  if (principal.projectId !== null && principal.projectId !== projectId) {
    throw forbidden('This API key has no access to this project.');
  }
  if (roleRank(principal.role) < roleRank(role)) {
    throw forbidden(`This action needs the ${role} role; the key has ${principal.role}.`);
  }
  if (
    environment !== undefined &&
    principal.environments !== null &&
    !principal.environments.includes(environment)
  ) {
    throw forbidden(`This API key has no access to the environment "${environment}".`);
  }
}

/** Throws `forbidden` unless the principal is an organisation-wide key with at least `role`. */
export function authorizeOrganisation(principal: Principal, role: Role): void {
  if (principal.projectId !== null) throw forbidden('This action needs an organisation-wide key.');
  if (roleRank(principal.role) < roleRank(role)) {
    throw forbidden(`This action needs the ${role} role; the key has ${principal.role}.`);
  }
}

/** True when the principal may see the project at all (for filtering lists). */
export const canSeeProject = (principal: Principal, projectId: string) =>
  principal.projectId === null || principal.projectId === projectId;

/** Flag-wide and environment-set changes reach every environment, so a key limited to some may not make them. */
export function requireAllEnvironments(principal: Principal): void {
  if (principal.environments !== null) {
    throw forbidden('This change affects every environment; the key is limited to some.');
  }
}
