import { type Principal, type Role, roleRank } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';
import type { ApiKeyStore, FlagStore, ProjectStore } from '../storage/store.ts';

const forbidden = (detail: string) => new DomainError('forbidden', detail);
const noProjectAccess = () => forbidden('This API key has no access to this project.');

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
  if (roleRank(principal.role) < roleRank(role)) {
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
  verb: 'create' | 'revoke',
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
  /** A project by id or key; undefined: the key's own (evaluation with a project key). */
  | { readonly kind: 'project'; readonly idOrKey: string | undefined }
  | { readonly kind: 'flag'; readonly id: string }
  | { readonly kind: 'segment'; readonly id: string }
  | { readonly kind: 'api-key'; readonly id: string };

/** The environments a request touches: some by name, `'all'`, or none in particular (undefined). */
export type EnvironmentScope = readonly string[] | 'all' | undefined;

/**
 * The authorisation of SPEC §5 as one check that can run before a request is validated, so a
 * key without access gets 403 whatever else is wrong with its request. The use cases check
 * again as they load what they act on; both follow the rules above.
 */
export class AccessChecks {
  readonly #store: ProjectStore & FlagStore & ApiKeyStore;
  /** Project key or id → id from memory (the snapshots'), so evaluation never asks the database. */
  readonly #knownProject: (reference: string) => string | undefined;

  constructor(
    store: ProjectStore & FlagStore & ApiKeyStore,
    knownProject: (reference: string) => string | undefined = () => undefined,
  ) {
    this.#store = store;
    this.#knownProject = knownProject;
  }

  /**
   * Throws `forbidden` (synchronously when it can tell without the database) unless the
   * principal may act with `role` on `target` in `environments`. Returns a promise only when a
   * lookup is needed: a project key naming its project by key, or a resource by id. Resources
   * that do not exist pass, for the use case to answer 404 after validation.
   */
  check(
    principal: Principal,
    role: Role,
    target: AccessTarget,
    environments: EnvironmentScope,
  ): Promise<void> | undefined {
    authorizeRole(principal, role);
    if (environments !== undefined) authorizeEnvironments(principal, environments);
    if (target.kind === 'organisation') {
      if (principal.projectId !== null) throw forbidden('This action needs an organisation-wide key.');
      return undefined;
    }
    if (target.kind === 'api-key') return this.#checkApiKey(principal, target.id);
    if (principal.projectId === null || target.kind === 'any') return undefined;
    if (target.kind === 'project') {
      if (target.idOrKey === undefined || target.idOrKey === principal.projectId) return undefined;
      const known = this.#knownProject(target.idOrKey);
      if (known !== undefined) {
        if (known !== principal.projectId) throw noProjectAccess();
        return undefined;
      }
      return this.#inProject(principal, this.#store.findProject(target.idOrKey), true);
    }
    const found =
      target.kind === 'flag' ? this.#store.findFlagById(target.id) : this.#store.findSegmentById(target.id);
    return this.#inProject(
      principal,
      found.then((resource) => resource && { id: resource.projectId }),
      false,
    );
  }

  /** A project key asking for another project, or an unknown one, learns nothing: 403 either way. */
  async #inProject(
    principal: Principal,
    project: Promise<{ readonly id: string } | undefined>,
    unknownIsForbidden: boolean,
  ): Promise<void> {
    const found = await project;
    if (found === undefined ? unknownIsForbidden : found.id !== principal.projectId) throw noProjectAccess();
  }

  async #checkApiKey(principal: Principal, keyId: string): Promise<void> {
    const key = await this.#store.findApiKeyById(keyId);
    if (key === undefined) return;
    if (key.projectId === null && principal.projectId !== null) {
      throw forbidden('Organisation-wide keys are managed with an organisation-wide key.');
    }
    if (principal.projectId !== null && key.projectId !== principal.projectId) throw noProjectAccess();
    refuseMorePower(principal, key.role, key.environments, 'revoke');
  }
}
