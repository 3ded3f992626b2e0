import { isoTime } from '../../domain/clock.ts';
import { conflict, notFound, validationFailed } from '../../domain/errors.ts';
import { type FlagEnvironment, initialFlagEnvironment } from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import { type Environment, protectedByDefault } from '../../domain/project.ts';
import type { ProjectStore, StoreRoles } from '../../storage/store.ts';
import { authorizeRole, requireAllEnvironments } from '../core/access.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { commitProjectChange, type WriteDeps } from '../core/commit.ts';
import { accessProject } from '../core/project-access.ts';
import { uniqueToConflict } from '../core/unique-to-conflict.ts';
import { changedMeanwhile, checkIfMatch } from '../core/versioned-write.ts';

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

/** The environments with the approvals their policy requires. */
async function withPolicies(store: ProjectStore, projectId: string, environments: readonly Environment[]) {
  const policies = await store.requiredApprovals(projectId);
  return environments.map((e) => ({ ...e, requiredApprovals: policies.get(e.key) ?? 0 }));
}

export class EnvironmentService {
  readonly #deps: WriteDeps;

  constructor(deps: WriteDeps) {
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
    const project = await accessProject(this.#deps.store, actor, projectIdOrKey, 'editor');
    requireAllEnvironments(actor.principal);
    const at = isoTime(this.#deps.clock);
    const environment: Environment = {
      id: newId('env'),
      projectId: project.id,
      key: input.key,
      name: input.name ?? input.key,
      description: input.description ?? '',
      protected: input.protected ?? protectedByDefault(input.key),
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    return commitProjectChange(this.#deps, project.id, 'project', async (tx) => {
      if (
        input.copyFrom !== undefined &&
        (await tx.findEnvironment(project.id, input.copyFrom)) === undefined
      ) {
        throw validationFailed(`No environment "${input.copyFrom}" to copy from.`, [
          { path: '/copyFrom', message: `no environment "${input.copyFrom}" in this project` },
        ]);
      }
      await tx
        .insertEnvironment(environment)
        .catch(uniqueToConflict(`An environment "${input.key}" already exists in project "${project.key}".`));
      const configs = new Map<string, FlagEnvironment>();
      for (const flag of await tx.allFlags(project.id)) {
        const source = input.copyFrom === undefined ? undefined : flag.environments[input.copyFrom];
        configs.set(flag.id, source ?? initialFlagEnvironment(flag.type, flag.variants));
      }
      await tx.insertFlagEnvironments(environment.id, configs);
      await recordAudit(tx, actor, project.id, {
        at: isoTime(this.#deps.clock),
        action: 'environment.created',
        resource: { type: 'environment', id: environment.id, key: environment.key },
        environment: environment.key,
        before: null,
        after: { ...environment, ...(input.copyFrom ? { copyFrom: input.copyFrom } : {}) },
      });
      return environment;
    });
  }

  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: EnvironmentPatch,
    options: { ifMatch?: number | undefined },
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
    return this.#deps.store.transaction(async (tx) => {
      const found = await tx.findEnvironment(current.projectId, key);
      const [stored] = found ? await withPolicies(tx, current.projectId, [found]) : [current];
      if (stored === undefined) throw notFound(`No environment "${key}".`);
      checkIfMatch(options.ifMatch, stored.version);
      const next: Environment = {
        ...stored,
        name: patch.name ?? stored.name,
        description: patch.description === null ? '' : (patch.description ?? stored.description),
        requiredApprovals: patch.requiredApprovals ?? stored.requiredApprovals ?? 0,
        protected: patch.protected ?? stored.protected,
        version: stored.version + 1,
        updatedAt: isoTime(this.#deps.clock),
      };
      if (!(await tx.updateEnvironment(next, stored.version))) throw changedMeanwhile('environment');
      if (next.requiredApprovals !== stored.requiredApprovals) {
        await tx.setRequiredApprovals(stored.id, next.requiredApprovals ?? 0);
      }
      await this.#audit(tx, actor, 'environment.updated', stored, next);
      return next;
    });
  }

  /** An existing environment's audit event: as it was, and as it is now (null once deleted). */
  #audit(
    tx: StoreRoles,
    actor: Actor,
    action: string,
    stored: Environment,
    after: Environment | null,
  ): Promise<void> {
    return recordAudit(tx, actor, stored.projectId, {
      at: isoTime(this.#deps.clock),
      action,
      resource: { type: 'environment', id: stored.id, key: stored.key },
      environment: stored.key,
      before: stored,
      after,
    });
  }

  async delete(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    options: { ifMatch?: number | undefined },
  ): Promise<void> {
    const current = await this.get(actor, projectIdOrKey, key);
    await accessProject(this.#deps.store, actor, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    // Deleting an environment takes its approvals and protection with it: governance, an admin's.
    authorizeRole(actor.principal, 'admin');
    await commitProjectChange(this.#deps, current.projectId, 'project', async (tx) => {
      const environments = await tx.listEnvironments(current.projectId);
      const stored = environments.find((e) => e.key === key);
      if (stored === undefined) throw notFound(`No environment "${key}".`);
      checkIfMatch(options.ifMatch, stored.version);
      if (environments.length === 1) {
        throw conflict('The last environment of a project cannot be deleted.');
      }
      await tx.deleteEnvironment(stored.id);
      await this.#audit(tx, actor, 'environment.deleted', stored, null);
    });
  }
}
