import { authorizeRole, requireAllEnvironments } from '../../access/access-rules.ts';
import { isoTime } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import { type FlagEnvironment, initialFlagEnvironment } from '../../domain/flag.ts';
import { type Environment, protectedByDefault } from '../../domain/project.ts';
import type { FlagStore, ProjectStore } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import type { IfMatch } from '../core/if-match.ts';
import { firstVersion, keyedInProject, takenIn } from '../core/keyed-resource.ts';
import { accessProject, projectToCreateIn } from '../core/project-access.ts';
import { type AuditRoles, type VersionedKind, writeVersioned } from '../core/versioned-write.ts';

export interface CreateEnvironmentInput {
  readonly key: string;
  readonly name?: string;
  readonly description?: string;
  /** Default: protectedByDefault(key). */
  readonly protected?: boolean;
  /** Key of an environment whose flag configuration the new one starts with. */
  readonly copyFrom?: string;
}

export interface EnvironmentPatch {
  readonly name?: string;
  readonly description?: string | null;
  readonly protected?: boolean;
  /** 0–5; only admins change it. */
  readonly requiredApprovals?: number;
}

/** The store roles environment use cases name: flags too, for their configuration in a new environment. */
export type EnvironmentRoles = ProjectStore & FlagStore & AuditRoles;

/** Environments as the one versioned write stores and audits them: each event names its environment. */
const ENVIRONMENTS: VersionedKind<Environment, EnvironmentRoles> = {
  ...keyedInProject('environment'),
  insert: (tx, environment) => tx.insertEnvironment(environment),
  update: (tx, environment, expectedVersion) => tx.updateEnvironment(environment, expectedVersion),
  remove: (tx, environment) => tx.deleteEnvironment(environment.id),
};

const notFoundIn = (key: string): never => {
  throw notFound(`No environment "${key}".`);
};

/** The environments with the approvals their policy requires. */
async function withPolicies(store: ProjectStore, projectId: string, environments: readonly Environment[]) {
  const policies = await store.requiredApprovals(projectId);
  return environments.map((e) => ({ ...e, requiredApprovals: policies.get(e.key) ?? 0 }));
}

export class EnvironmentService {
  readonly #deps: WriteDeps<EnvironmentRoles>;

  constructor(deps: WriteDeps<EnvironmentRoles>) {
    this.#deps = deps;
  }

  async list(actor: Actor, projectIdOrKey: string): Promise<readonly Environment[]> {
    const project = await accessProject(this.#deps.store, actor, projectIdOrKey, 'viewer');
    return withPolicies(this.#deps.store, project.id, await this.#deps.store.listEnvironments(project.id));
  }

  async get(actor: Actor, projectIdOrKey: string, key: string): Promise<Environment> {
    const project = await accessProject(this.#deps.store, actor, projectIdOrKey, 'viewer');
    const environment = await this.#deps.store.findEnvironment(project.id, key);
    if (environment === undefined) throw notFound(`No environment "${key}" in project "${project.key}".`);
    const [withPolicy] = await withPolicies(this.#deps.store, project.id, [environment]);
    return withPolicy as Environment;
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateEnvironmentInput): Promise<Environment> {
    const project = await projectToCreateIn(this.#deps.store, actor, projectIdOrKey);
    const environment: Environment = {
      ...firstVersion('env', input, isoTime(this.#deps.clock)),
      projectId: project.id,
      protected: input.protected ?? protectedByDefault(input.key),
    };
    const { copyFrom } = input;
    return commitProjectChange(this.#deps, project.id, 'project', (tx) =>
      writeVersioned(tx, actor, this.#deps.clock, ENVIRONMENTS, {
        create: async () => {
          if (copyFrom !== undefined && (await tx.findEnvironment(project.id, copyFrom)) === undefined) {
            throw validationFailed(`No environment "${copyFrom}" to copy from.`, [
              { path: '/copyFrom', message: `no environment "${copyFrom}" in this project` },
            ]);
          }
          return {
            next: environment,
            action: 'environment.created',
            taken: takenIn(project, 'environment', input.key),
            environment: environment.key,
            after: { ...environment, ...(copyFrom ? { copyFrom } : {}) },
          };
        },
        also: async () => {
          const configs = new Map<string, FlagEnvironment>();
          for (const flag of await tx.allFlags(project.id)) {
            const source = copyFrom === undefined ? undefined : flag.environments[copyFrom];
            configs.set(flag.id, source ?? initialFlagEnvironment(flag.type, flag.variants));
          }
          await tx.insertFlagEnvironments(environment.id, configs);
        },
      }),
    );
  }

  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: EnvironmentPatch,
    options: IfMatch,
  ): Promise<Environment> {
    const current = await this.get(actor, projectIdOrKey, key);
    await accessProject(this.#deps.store, actor, current.projectId, 'editor', key);
    // Editors may not switch off the four eyes, or the confirmation, that watch them (decision
    // 1700); sending the values as they are (a whole form) is no change.
    if (
      (patch.requiredApprovals !== undefined &&
        patch.requiredApprovals !== (current.requiredApprovals ?? 0)) ||
      (patch.protected !== undefined && patch.protected !== current.protected)
    )
      authorizeRole(actor.principal, 'admin');
    return this.#deps.store.transaction((tx) =>
      writeVersioned(tx, actor, this.#deps.clock, ENVIRONMENTS, {
        // Deleted meanwhile: the update finds nothing to write, a lost race (412).
        load: async () => {
          const found = await tx.findEnvironment(current.projectId, key);
          return found ? ((await withPolicies(tx, current.projectId, [found]))[0] as Environment) : current;
        },
        ifMatch: options.ifMatch,
        change: async (stored) => {
          const next: Environment = {
            ...stored,
            name: patch.name ?? stored.name,
            description: patch.description === null ? '' : (patch.description ?? stored.description),
            requiredApprovals: patch.requiredApprovals ?? stored.requiredApprovals ?? 0,
            protected: patch.protected ?? stored.protected,
            version: stored.version + 1,
            updatedAt: isoTime(this.#deps.clock),
          };
          if (next.requiredApprovals !== stored.requiredApprovals) {
            await tx.setRequiredApprovals(stored.id, next.requiredApprovals ?? 0);
          }
          return { next, action: 'environment.updated', environment: stored.key };
        },
      }),
    );
  }

  async delete(actor: Actor, projectIdOrKey: string, key: string, options: IfMatch): Promise<void> {
    const current = await this.get(actor, projectIdOrKey, key);
    await accessProject(this.#deps.store, actor, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    // Deleting an environment takes its approvals and protection with it: governance, an admin's.
    authorizeRole(actor.principal, 'admin');
    await commitProjectChange(this.#deps, current.projectId, 'project', (tx) =>
      writeVersioned(tx, actor, this.#deps.clock, ENVIRONMENTS, {
        load: async () => (await tx.findEnvironment(current.projectId, key)) ?? notFoundIn(key),
        ifMatch: options.ifMatch,
        change: async (stored) => {
          if ((await tx.listEnvironments(current.projectId)).length === 1) {
            throw conflict('The last environment of a project cannot be deleted.');
          }
          return { next: null, action: 'environment.deleted', environment: stored.key };
        },
      }),
    );
  }
}
