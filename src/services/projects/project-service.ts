import { authorizeOrganisation, authorizeRole } from '../../access/access-rules.ts';
import { type Clock, isoTime } from '../../domain/clock.ts';
import { validationFailed } from '../../domain/errors.ts';
import {
  DEFAULT_ENVIRONMENTS,
  type Environment,
  type Project,
  protectedByDefault,
} from '../../domain/project.ts';
import type { Page, PageRequest, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import type { WriteDeps } from '../core/commit.ts';
import type { IfMatch } from '../core/if-match.ts';
import { firstVersion } from '../core/keyed-resource.ts';
import { accessProject } from '../core/project-access.ts';
import { type AuditRoles, type VersionedKind, writeVersioned } from '../core/versioned-write.ts';

/** The store roles project use cases name. */
export type ProjectRoles = ProjectStore & AuditRoles;

/** Projects as the one versioned write stores and audits them. */
const PROJECTS: VersionedKind<Project, ProjectRoles> = {
  type: 'project',
  key: (project) => project.key,
  // A deleted project's own log goes with it; the event of its deletion stays in the organisation's.
  logOf: (project, deleted) => (deleted ? null : project.id),
  insert: (tx, project) => tx.insertProject(project),
  update: (tx, project, expectedVersion) => tx.updateProject(project, expectedVersion),
  remove: (tx, project) => tx.deleteProject(project.id),
};

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
  readonly #deps: WriteDeps<ProjectRoles>;

  constructor(deps: WriteDeps<ProjectRoles>) {
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

  async patch(actor: Actor, idOrKey: string, patch: ProjectPatch, options: IfMatch): Promise<Project> {
    const project = await accessProject(this.#deps.store, actor, idOrKey, 'admin');
    return this.#deps.store.transaction((tx) =>
      writeVersioned(tx, actor, this.#deps.clock, PROJECTS, {
        load: async () => (await tx.findProject(project.id)) ?? project,
        ifMatch: options.ifMatch,
        change: async (stored) => ({
          next: {
            ...stored,
            name: patch.name ?? stored.name,
            description: patch.description === null ? '' : (patch.description ?? stored.description),
            version: stored.version + 1,
            updatedAt: isoTime(this.#deps.clock),
          },
          action: 'project.updated',
        }),
      }),
    );
  }

  async delete(actor: Actor, idOrKey: string, options: IfMatch): Promise<void> {
    const project = await accessProject(this.#deps.store, actor, idOrKey, 'admin');
    authorizeOrganisation(actor.principal, 'admin');
    await this.#deps.store.transaction((tx) =>
      writeVersioned(tx, actor, this.#deps.clock, PROJECTS, {
        load: async () => project,
        ifMatch: options.ifMatch,
        change: async () => ({ next: null, action: 'project.deleted' }),
      }),
    );
    this.#deps.snapshots.forget(project.id);
    this.#deps.keys?.removeProject(project.id);
  }
}

/** Creates a project with its environments (used by the API and by first start). */
export async function createProject(
  store: WithTransactions<ProjectRoles>,
  actor: Actor,
  input: CreateProjectInput & { environments: readonly { key: string; name?: string }[] },
  clock: Clock,
): Promise<Project> {
  const at = isoTime(clock);
  const project: Project = firstVersion('prj', input, at);
  const environments = input.environments.map(
    (e): Environment => ({
      ...firstVersion('env', e, at),
      projectId: project.id,
      protected: protectedByDefault(e.key),
    }),
  );
  return store.transaction((tx) =>
    writeVersioned(tx, actor, clock, PROJECTS, {
      create: async () => ({
        next: project,
        action: 'project.created',
        taken: `A project "${project.key}" already exists.`,
        after: { ...project, environments: environments.map((e) => e.key) },
      }),
      also: async () => {
        for (const environment of environments) await tx.insertEnvironment(environment);
      },
    }),
  );
}
