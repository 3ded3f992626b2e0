import { validationFailed } from '../domain/errors.ts';
import {
  DEFAULT_ENVIRONMENTS,
  type Environment,
  type Project,
  protectedByDefault,
} from '../domain/project.ts';
import type { Page, PageRequest, StoreRoles } from '../storage/store.ts';
import { authorizeOrganisation, authorizeRole } from './access.ts';
import type { Actor } from './actor.ts';
import { changeEntry, recordAudit } from './audit.ts';
import { ProjectWriter } from './commit.ts';
import { accessProject, changedMeanwhile, checkIfMatch, now } from './project-access.ts';
import { firstVersion, nextVersion, patchedNaming } from './resource-versions.ts';
import { uniqueToConflict } from './unique-to-conflict.ts';

export interface CreateProjectInput {
  readonly key: string;
  readonly name?: string;
  readonly description?: string;
  readonly environments?: readonly { readonly key: string; readonly name?: string }[];
}

export interface ProjectPatch {
  readonly name?: string;
  readonly description?: string | null;
}

export class ProjectService extends ProjectWriter {
  /** Organisation-wide keys see every project; a project key sees its own. */
  async list(actor: Actor, page: PageRequest): Promise<Page<Project>> {
    const { principal } = actor;
    authorizeRole(principal, 'viewer');
    if (principal.projectId === null) return this.store.listProjects(page);
    const own = await this.store.findProject(principal.projectId);
    return { items: own ? [own] : [] };
  }

  /** A project's key, for labels (metrics); no access check, since it reveals only what the caller named by id. */
  async keyOf(projectId: string): Promise<string | undefined> {
    return (await this.store.findProject(projectId))?.key;
  }

  get(actor: Actor, idOrKey: string): Promise<Project> {
    return accessProject(this.store, actor, idOrKey, 'viewer');
  }

  async create(actor: Actor, input: CreateProjectInput): Promise<Project> {
    authorizeOrganisation(actor.principal, 'admin');
    const environments = input.environments ?? DEFAULT_ENVIRONMENTS;
    const keys = environments.map((e) => e.key);
    if (environments.length === 0) {
      throw validationFailed('A project needs at least one environment.', [
        { path: '/environments', message: 'must not be empty' },
      ]);
    }
    const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
    if (duplicate) {
      throw validationFailed('Environment keys must differ.', [
        { path: '/environments', message: `"${duplicate}" appears twice` },
      ]);
    }
    return createProject(this.store, actor, { ...input, environments });
  }

  async patch(
    actor: Actor,
    idOrKey: string,
    patch: ProjectPatch,
    options: { ifMatch?: number | undefined },
  ): Promise<Project> {
    const project = await accessProject(this.store, actor, idOrKey, 'admin');
    return this.store.transaction(async (tx) => {
      const stored = (await tx.findProject(project.id)) ?? project;
      checkIfMatch(options.ifMatch, stored.version);
      const next = nextVersion(stored, patchedNaming(stored, patch));
      if (!(await tx.updateProject(next, stored.version))) throw changedMeanwhile('project');
      await recordAudit(tx, actor, project.id, changeEntry('project', 'updated', project, stored, next));
      return next;
    });
  }

  async delete(actor: Actor, idOrKey: string, options: { ifMatch?: number | undefined }): Promise<void> {
    const project = await accessProject(this.store, actor, idOrKey, 'admin');
    authorizeOrganisation(actor.principal, 'admin');
    checkIfMatch(options.ifMatch, project.version);
    await this.store.transaction(async (tx) => {
      await tx.deleteProject(project.id);
      // The project's own log goes with it; this event stays in the organisation's log.
      await recordAudit(tx, actor, null, changeEntry('project', 'deleted', project, project, null));
    });
    this.deps.snapshots.forget(project.id);
    this.deps.keys?.removeProject(project.id);
  }
}

/** Creates a project with its environments (used by the API and by first start). */
export async function createProject(
  store: StoreRoles,
  actor: Actor,
  input: CreateProjectInput & { environments: readonly { key: string; name?: string }[] },
): Promise<Project> {
  const at = now();
  const project: Project = firstVersion('prj', input, at);
  return store.transaction(async (tx) => {
    await tx.insertProject(project).catch(uniqueToConflict(`A project "${project.key}" already exists.`));
    const environments: Environment[] = [];
    for (const e of input.environments) {
      const environment: Environment = {
        ...firstVersion('env', { key: e.key, name: e.name }, at),
        projectId: project.id,
        protected: protectedByDefault(e.key),
      };
      await tx.insertEnvironment(environment);
      environments.push(environment);
    }
    await recordAudit(
      tx,
      actor,
      project.id,
      changeEntry('project', 'created', project, null, {
        ...project,
        environments: environments.map((e) => e.key),
      }),
    );
    return project;
  });
}
