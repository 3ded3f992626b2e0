import { DomainError, notFound } from '../domain/errors.ts';
import { type FlagEnvironment, initialFlagEnvironment } from '../domain/flag.ts';
import { type Environment, protectedByDefault } from '../domain/project.ts';
import type { ChangeSafetyStores } from '../storage/store.ts';
import { authorizeRole, requireAllEnvironments } from './access.ts';
import type { Actor } from './actor.ts';
import { changeEntry, recordAudit } from './audit.ts';
import { commitProjectChange, ProjectWriter } from './commit.ts';
import { accessProject, changedMeanwhile, checkIfMatch } from './project-access.ts';
import { firstVersion, nextVersion, patchedNaming } from './resource-versions.ts';
import { uniqueToConflict } from './unique-to-conflict.ts';

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
async function withPolicies(
  store: ChangeSafetyStores,
  projectId: string,
  environments: readonly Environment[],
) {
  const policies = await store.approvals.requiredApprovals(projectId);
  return environments.map((e) => ({ ...e, requiredApprovals: policies.get(e.key) ?? 0 }));
}

export class EnvironmentService extends ProjectWriter {
  async list(actor: Actor, projectIdOrKey: string): Promise<readonly Environment[]> {
    const project = await accessProject(this.store, actor, projectIdOrKey, 'viewer');
    return withPolicies(this.store, project.id, await this.store.listEnvironments(project.id));
  }

  async get(actor: Actor, projectIdOrKey: string, key: string): Promise<Environment> {
    const project = await accessProject(this.store, actor, projectIdOrKey, 'viewer');
    const environment = await this.store.findEnvironment(project.id, key);
    if (environment === undefined) throw notFound(`No environment "${key}" in project "${project.key}".`);
    const [withPolicy] = await withPolicies(this.store, project.id, [environment]);
    return withPolicy as Environment;
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateEnvironmentInput): Promise<Environment> {
    const project = await accessProject(this.store, actor, projectIdOrKey, 'editor');
    requireAllEnvironments(actor.principal);
    const environment: Environment = {
      ...firstVersion('env', input),
      projectId: project.id,
      protected: input.protected ?? protectedByDefault(input.key),
    };
    return commitProjectChange(this.deps, project.id, 'project', async (tx) => {
      if (
        input.copyFrom !== undefined &&
        (await tx.findEnvironment(project.id, input.copyFrom)) === undefined
      ) {
        throw new DomainError('validation_failed', `No environment "${input.copyFrom}" to copy from.`, [
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
        ...changeEntry('environment', 'created', environment, null, {
          ...environment,
          ...(input.copyFrom ? { copyFrom: input.copyFrom } : {}),
        }),
        environment: environment.key,
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
    await accessProject(this.store, actor, current.projectId, 'editor', key);
    // Editors may not switch off the four eyes that watch them.
    if (patch.requiredApprovals !== undefined) authorizeRole(actor.principal, 'admin');
    return this.store.transaction(async (tx) => {
      const found = await tx.findEnvironment(current.projectId, key);
      const [stored] = found ? await withPolicies(tx, current.projectId, [found]) : [current];
      if (stored === undefined) throw notFound(`No environment "${key}".`);
      checkIfMatch(options.ifMatch, stored.version);
      const next = nextVersion(stored, {
        ...patchedNaming(stored, patch),
        requiredApprovals: patch.requiredApprovals ?? stored.requiredApprovals ?? 0,
        protected: patch.protected ?? stored.protected,
      });
      if (!(await tx.updateEnvironment(next, stored.version))) throw changedMeanwhile('environment');
      if (next.requiredApprovals !== stored.requiredApprovals) {
        await tx.approvals.setRequiredApprovals(stored.id, next.requiredApprovals ?? 0);
      }
      await recordAudit(tx, actor, stored.projectId, {
        ...changeEntry('environment', 'updated', stored, stored, next),
        environment: key,
      });
      return next;
    });
  }

  async delete(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    options: { ifMatch?: number | undefined },
  ): Promise<void> {
    const current = await this.get(actor, projectIdOrKey, key);
    await accessProject(this.store, actor, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    await commitProjectChange(this.deps, current.projectId, 'project', async (tx) => {
      const environments = await tx.listEnvironments(current.projectId);
      const stored = environments.find((e) => e.key === key);
      if (stored === undefined) throw notFound(`No environment "${key}".`);
      checkIfMatch(options.ifMatch, stored.version);
      if (environments.length === 1) {
        throw new DomainError('conflict', 'The last environment of a project cannot be deleted.');
      }
      await tx.deleteEnvironment(stored.id);
      await recordAudit(tx, actor, stored.projectId, {
        ...changeEntry('environment', 'deleted', stored, stored, null),
        environment: key,
      });
    });
  }
}
