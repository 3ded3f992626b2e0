import { DomainError, notFound } from '../domain/errors.ts';
import { type FlagEnvironment, initialFlagEnvironment } from '../domain/flag.ts';
import { type Environment, protectedByDefault } from '../domain/project.ts';
import { requireAllEnvironments } from './access.ts';
import type { Actor } from './actor.ts';
import { recordAudit } from './audit.ts';
import { commitProjectChange, type WriteDeps } from './commit.ts';
import { newId } from './ids.ts';
import { accessProject, changedMeanwhile, checkIfMatch, now } from './project-access.ts';
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
}

export class EnvironmentService {
  readonly #deps: WriteDeps;

  constructor(deps: WriteDeps) {
    this.#deps = deps;
  }

  async list(actor: Actor, projectIdOrKey: string): Promise<readonly Environment[]> {
    const project = await accessProject(this.#deps.store, actor.principal, projectIdOrKey, 'viewer');
    return this.#deps.store.listEnvironments(project.id);
  }

  async get(actor: Actor, projectIdOrKey: string, key: string): Promise<Environment> {
    const project = await accessProject(this.#deps.store, actor.principal, projectIdOrKey, 'viewer');
    const environment = await this.#deps.store.findEnvironment(project.id, key);
    if (environment === undefined) throw notFound(`No environment "${key}" in project "${project.key}".`);
    return environment;
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateEnvironmentInput): Promise<Environment> {
    const project = await accessProject(this.#deps.store, actor.principal, projectIdOrKey, 'editor');
    requireAllEnvironments(actor.principal);
    const at = now();
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
    await accessProject(this.#deps.store, actor.principal, current.projectId, 'editor', key);
    return this.#deps.store.transaction(async (tx) => {
      const stored = (await tx.findEnvironment(current.projectId, key)) ?? current;
      checkIfMatch(options.ifMatch, stored.version);
      const next: Environment = {
        ...stored,
        name: patch.name ?? stored.name,
        description: patch.description === null ? '' : (patch.description ?? stored.description),
        protected: patch.protected ?? stored.protected,
        version: stored.version + 1,
        updatedAt: now(),
      };
      if (!(await tx.updateEnvironment(next, stored.version))) throw changedMeanwhile('environment');
      await recordAudit(tx, actor, stored.projectId, {
        action: 'environment.updated',
        resource: { type: 'environment', id: stored.id, key },
        environment: key,
        before: stored,
        after: next,
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
    await accessProject(this.#deps.store, actor.principal, current.projectId, 'editor');
    requireAllEnvironments(actor.principal);
    await commitProjectChange(this.#deps, current.projectId, 'project', async (tx) => {
      const environments = await tx.listEnvironments(current.projectId);
      const stored = environments.find((e) => e.key === key);
      if (stored === undefined) throw notFound(`No environment "${key}".`);
      checkIfMatch(options.ifMatch, stored.version);
      if (environments.length === 1) {
        throw new DomainError('conflict', 'The last environment of a project cannot be deleted.');
      }
      await tx.deleteEnvironment(stored.id);
      await recordAudit(tx, actor, stored.projectId, {
        action: 'environment.deleted',
        resource: { type: 'environment', id: stored.id, key },
        environment: key,
        before: stored,
        after: null,
      });
    });
  }
}
