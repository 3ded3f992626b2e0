import { type Principal, type Role, roleRank } from '../../domain/api-key.ts';
import { forbidden, noProjectAccess } from '../../domain/errors.ts';
import type { Project } from '../../domain/project.ts';
import type { ApiKeyStore, FlagStore, PendingChangeRole, ProjectStore } from '../../storage/store.ts';

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

const NOTHING_IN_PARTICULAR: Grant = {};

/** Project references (key or id as named in requests → id) remembered while the project lives. */
export interface ProjectReferences {
  projectIdFor(reference: string): string | undefined;
  rememberProjectId(reference: string, projectId: string): void;
}

/**
 * The authorisation of docs/product.md §5, the one source of truth: the route hook runs it before a
 * request is validated, so a key without access gets 403 whatever else is wrong with its
 * request, and hands its Grant to the use case. Use cases called without a route (the CLI)
 * run the same rules through `project-access.ts`.
 */
export class AccessChecks {
  readonly #store: ProjectStore & FlagStore & ApiKeyStore & PendingChangeRole;
  readonly #references: ProjectReferences | undefined;

  constructor(
    store: ProjectStore & FlagStore & ApiKeyStore & PendingChangeRole,
    references?: ProjectReferences,
  ) {
    this.#store = store;
    this.#references = references;
  }

  /**
   * Throws `forbidden` (synchronously when it can tell without the database) unless the
   * principal may act with `role` on `target` in `environments`; otherwise returns the Grant,
   * as a promise only when a lookup was needed.
   */
  check(
    principal: Principal,
    role: Role,
    target: AccessTarget,
    environments: EnvironmentScope,
  ): Grant | Promise<Grant> {
    authorizeRole(principal, role);
    if (environments !== undefined) authorizeEnvironments(principal, environments);
    switch (target.kind) {
      case 'organisation':
        if (principal.projectId !== null) throw forbidden('This action needs an organisation-wide key.');
        return NOTHING_IN_PARTICULAR;
      case 'any':
        return NOTHING_IN_PARTICULAR;
      case 'own-account':
        if (principal.type !== 'user')
          throw forbidden('Only a signed-in person has a password; an API key has none.');
        return NOTHING_IN_PARTICULAR;
      case 'api-key':
        return this.#checkApiKey(principal, target.id);
      case 'project':
        return this.#project(principal, target.idOrKey, target.evaluation === true);
      case 'flag':
        return this.#resource(principal, this.#store.findFlagById(target.id));
      case 'segment':
        return this.#resource(principal, this.#store.findSegmentById(target.id));
      case 'change-request':
        return this.#resource(principal, this.#store.pendingChanges.find('request', target.id));
    }
  }

  #project(principal: Principal, idOrKey: string | undefined, evaluation: boolean): Grant | Promise<Grant> {
    if (idOrKey === undefined) {
      return principal.projectId === null ? NOTHING_IN_PARTICULAR : { projectId: principal.projectId };
    }
    const cached = evaluation ? this.#references?.projectIdFor(idOrKey) : undefined;
    if (cached !== undefined) return this.#inProject(principal, cached);
    return this.#store.findProject(idOrKey).then((project) => {
      // A project key asking for another project, or an unknown one, learns nothing: 403 either way.
      if (project === undefined) {
        if (principal.projectId !== null) throw noProjectAccess();
        return NOTHING_IN_PARTICULAR;
      }
      if (evaluation) this.#references?.rememberProjectId(idOrKey, project.id);
      return { ...this.#inProject(principal, project.id), project };
    });
  }

  #inProject(principal: Principal, projectId: string): Grant {
    if (principal.projectId !== null && principal.projectId !== projectId) throw noProjectAccess();
    return { projectId };
  }

  /**
   * A resource named by id alone: another project's is answered as if it did not exist (404),
   * so probing ids tells a project key nothing (decision 0020).
   */
  async #resource(
    principal: Principal,
    found: Promise<{ readonly projectId: string } | undefined>,
  ): Promise<Grant> {
    const resource = await found;
    if (resource === undefined) return NOTHING_IN_PARTICULAR;
    if (principal.projectId !== null && principal.projectId !== resource.projectId)
      return NOTHING_IN_PARTICULAR;
    return { projectId: resource.projectId };
  }

  async #checkApiKey(principal: Principal, keyId: string): Promise<Grant> {
    const key = await this.#store.findApiKeyById(keyId);
    if (key === undefined) return NOTHING_IN_PARTICULAR;
    if (key.projectId === null && principal.projectId !== null) {
      throw forbidden('Organisation-wide keys are managed with an organisation-wide key.');
    }
    if (principal.projectId !== null && key.projectId !== principal.projectId) throw noProjectAccess();
    refuseMorePower(principal, key.role, key.environments, 'revoke');
    return key.projectId === null ? NOTHING_IN_PARTICULAR : { projectId: key.projectId };
  }
}
