import { type Clock, isoTime } from '../../domain/clock.ts';
import { validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import {
  DEFAULT_ENVIRONMENTS,
  type Environment,
  type Project,
  protectedByDefault,
} from '../../domain/project.ts';
import type { Page, PageRequest, StoreRoles } from '../../storage/store.ts';
import { authorizeOrganisation, authorizeRole } from '../core/access.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import type { WriteDeps } from '../core/commit.ts';
import { accessProject } from '../core/project-access.ts';
import { uniqueToConflict } from '../core/unique-to-conflict.ts';
import { changedMeanwhile, checkIfMatch } from '../core/versioned-write.ts';

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

export class ProjectService {
  readonly #deps: WriteDeps;

  constructor(deps: WriteDeps) {
    this.#deps = deps;
  }

  /** Organisation-wide keys see every project; a project key sees its own. */
  async list(actor: Actor, page: PageRequest): Promise<Page<Project>> {
    const { principal } = actor;
    authorizeRole(principal, 'viewer');
    if (principal.projectId === null) return this.#deps.store.listProjects(page);
    const own = await this.#deps.store.findProject(principal.projectId);
    return { items: own ? [own] : [] };
  }

  /** A project's key, for labels (metrics); no access check, since it reveals only what the caller named by id. */
  async keyOf(projectId: string): Promise<string | undefined> {
    return (await this.#deps.store.findProject(projectId))?.key;
  }

  get(actor: Actor, idOrKey: string): Promise<Project> {
    return accessProject(this.#deps.store, actor, idOrKey, 'viewer');
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
    return createProject(this.#deps.store, actor, { ...input, environments }, this.#deps.clock);
  }

  async patch(
    actor: Actor,
    idOrKey: string,
    patch: ProjectPatch,
    options: { ifMatch?: number | undefined },
  ): Promise<Project> {
    const project = await accessProject(this.#deps.store, actor, idOrKey, 'admin');
    return this.#deps.store.transaction(async (tx) => {
      const stored = (await tx.findProject(project.id)) ?? project;
      checkIfMatch(options.ifMatch, stored.version);
      const next: Project = {
        ...stored,
        name: patch.name ?? stored.name,
        description: patch.description === null ? '' : (patch.description ?? stored.description),
        version: stored.version + 1,
        updatedAt: isoTime(this.#deps.clock),
      };
      if (!(await tx.updateProject(next, stored.version))) throw changedMeanwhile('project');
      await recordAudit(tx, actor, project.id, {
        at: isoTime(this.#deps.clock),
        action: 'project.updated',
        resource: { type: 'project', id: project.id, key: project.key },
        before: stored,
        after: next,
      });
      return next;
    });
  }

  async delete(actor: Actor, idOrKey: string, options: { ifMatch?: number | undefined }): Promise<void> {
    const project = await accessProject(this.#deps.store, actor, idOrKey, 'admin');
    authorizeOrganisation(actor.principal, 'admin');
    checkIfMatch(options.ifMatch, project.version);
    await this.#deps.store.transaction(async (tx) => {
      await tx.deleteProject(project.id);
      // The project's own log goes with it; this event stays in the organisation's log.
      await recordAudit(tx, actor, null, {
        at: isoTime(this.#deps.clock),
        action: 'project.deleted',
        resource: { type: 'project', id: project.id, key: project.key },
        before: project,
        after: null,
      });
    });
    this.#deps.snapshots.forget(project.id);
    this.#deps.keys?.removeProject(project.id);
  }
}

/** Creates a project with its environments (used by the API and by first start). */
export async function createProject(
  store: StoreRoles,
  actor: Actor,
  input: CreateProjectInput & { environments: readonly { key: string; name?: string }[] },
  clock: Clock,
): Promise<Project> {
  const at = isoTime(clock);
  const project: Project = {
    id: newId('prj'),
    key: input.key,
    name: input.name ?? input.key,
    description: input.description ?? '',
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  return store.transaction(async (tx) => {
    await tx.insertProject(project).catch(uniqueToConflict(`A project "${project.key}" already exists.`));
    const environments: Environment[] = [];
    for (const e of input.environments) {
      const environment: Environment = {
        id: newId('env'),
        projectId: project.id,
        key: e.key,
        name: e.name ?? e.key,
        description: '',
        protected: protectedByDefault(e.key),
        version: 1,
        createdAt: at,
        updatedAt: at,
      };
      await tx.insertEnvironment(environment);
      environments.push(environment);
    }
    await recordAudit(tx, actor, project.id, {
      at,
      action: 'project.created',
      resource: { type: 'project', id: project.id, key: project.key },
      before: null,
      after: { ...project, environments: environments.map((e) => e.key) },
    });
    return project;
  });
}
