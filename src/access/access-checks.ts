import type { Principal, Role } from '../domain/api-key.ts';
import { forbidden, noProjectAccess } from '../domain/errors.ts';
import type { ApiKeyStore, FlagStore, PendingChangeRole, ProjectStore } from '../storage/store.ts';
import {
  type AccessTarget,
  authorizeEnvironments,
  authorizeRole,
  type EnvironmentScope,
  type Grant,
  refuseMorePower,
} from './access-rules.ts';

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
 * run the same rules through `services/core/project-access.ts`.
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
      case 'project-id':
        return this.#inProject(principal, target.id);
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
