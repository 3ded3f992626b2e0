import type { Role } from '../../domain/api-key.ts';
import type { Clock } from '../../domain/clock.ts';
import { notFound } from '../../domain/errors.ts';
import type { ProjectResource } from '../../domain/keyed-resource.ts';
import type { Project } from '../../domain/project.ts';
import type { ProjectKeyedStore } from '../../storage/project-keyed-store.ts';
import type { Page, PageRequest, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { Actor } from './actor.ts';
import { keyedInProject, takenIn } from './keyed-resource.ts';
import { accessProject } from './project-access.ts';
import { type AuditRoles, type Outcome, type VersionedKind, writeVersioned } from './versioned-write.ts';

// Metrics, release templates and experiments are one shape of resource (docs/decisions/2030):
// keyed in their project, read by viewers, written by editors, each write versioned and audited
// as `<type>.created`, `.updated` or `.deleted`. That shape is written once here; a service says
// what its resource is and checks what only it checks.

/** A kind of resource keyed in its project, as its service reaches and names it. */
export interface ProjectKeyedKind<R extends ProjectResource, Roles> {
  /** The audit log's type ('metric', 'release_template'); in words ('release template') it names the resource in errors. */
  readonly type: string;
  /** Its rows, in the store or transaction given. */
  readonly rows: (tx: Roles) => Omit<ProjectKeyedStore<R>, 'list'>;
  /** The one environment it belongs to, for the audit log's filter; none when it spans the project. */
  readonly environmentOf?: (resource: R) => string;
}

/** Which stored resource an update or delete writes, for whom, at which `If-Match`. */
export interface StoredTarget<R, Roles> {
  readonly actor: Actor;
  readonly project: Project;
  readonly key: string;
  readonly ifMatch: number | undefined;
  /** How it is read in the write's transaction where the kind checks more than that it exists (default: by key). */
  readonly load?: ((tx: Roles) => Promise<R>) | undefined;
}

/** What a write does to a stored resource, for the errors that name it. */
type Write = 'changed' | 'deleted';

/** The reads and audited writes of one project-keyed kind of resource, over the store and clock of its service. */
export class ProjectKeyedResources<R extends ProjectResource, Roles extends ProjectStore & AuditRoles> {
  readonly #store: WithTransactions<Roles>;
  readonly #clock: Clock;
  readonly #kind: ProjectKeyedKind<R, Roles>;
  /** The kind as the one versioned write sees it, for the writes a service makes beside these (an experiment's start). */
  readonly versioned: VersionedKind<R, Roles>;
  readonly #word: string;

  constructor(store: WithTransactions<Roles>, clock: Clock, kind: ProjectKeyedKind<R, Roles>) {
    this.#store = store;
    this.#clock = clock;
    this.#kind = kind;
    this.#word = kind.type.replaceAll('_', ' ');
    this.versioned = {
      ...keyedInProject(kind.type),
      insert: (tx, resource) => kind.rows(tx).insert(resource),
      update: (tx, resource, expectedVersion) => kind.rows(tx).update(resource, expectedVersion),
      remove: (tx, resource) => kind.rows(tx).delete(resource.id),
    };
  }

  /** The project the request acts in, checked for `role`. */
  project(actor: Actor, projectIdOrKey: string, role: Role): Promise<Project> {
    return accessProject(this.#store, actor, projectIdOrKey, role);
  }

  /** A viewer's page of the project's resources, through the list the kind's store offers. */
  async list(
    actor: Actor,
    projectIdOrKey: string,
    page: PageRequest,
    list: (projectId: string, page: PageRequest) => Promise<Page<R>>,
  ): Promise<Page<R>> {
    const project = await this.project(actor, projectIdOrKey, 'viewer');
    return list(project.id, page);
  }

  /** A viewer's read of one resource by key (404 when the project has none). */
  async get(actor: Actor, projectIdOrKey: string, key: string): Promise<R> {
    const project = await this.project(actor, projectIdOrKey, 'viewer');
    return this.find(this.#store, project, key);
  }

  /** The resource of the project with this key, read in `tx`; the 404 when there is none. */
  async find(tx: Roles, project: Pick<Project, 'id' | 'key'>, key: string): Promise<R> {
    const found = await this.#kind.rows(tx).findByKey(project.id, key);
    if (found === undefined) throw notFound(`No ${this.#word} "${key}" in project "${project.key}".`);
    return found;
  }

  /** Writes a new resource of the project, `check`ed first in the transaction; a taken key is a 409. */
  create(actor: Actor, project: Project, next: R, check?: (tx: Roles) => Promise<void>): Promise<R> {
    return this.#store.transaction(async (tx) => {
      await check?.(tx);
      return writeVersioned(tx, actor, this.#clock, this.versioned, {
        create: async () => ({
          next,
          action: `${this.#kind.type}.created`,
          environment: this.#kind.environmentOf?.(next),
          taken: takenIn(project, this.#word, next.key),
        }),
      });
    });
  }

  /** Writes what `change` makes of the stored resource, if it still has the version `If-Match` names. */
  update(target: StoredTarget<R, Roles>, change: (stored: R, tx: Roles) => Promise<R>): Promise<R> {
    return this.#write(target, async (stored, tx) => {
      const next = await change(stored, tx);
      return { next, action: `${this.#kind.type}.updated`, environment: this.#kind.environmentOf?.(next) };
    });
  }

  /** Deletes the stored resource, if it still has the version `If-Match` names. */
  async delete(target: StoredTarget<R, Roles>): Promise<void> {
    await this.#write(target, async (stored) => ({
      next: null,
      action: `${this.#kind.type}.deleted`,
      environment: this.#kind.environmentOf?.(stored),
    }));
  }

  #write(target: StoredTarget<R, Roles>, change: (stored: R, tx: Roles) => Promise<Outcome<R>>): Promise<R> {
    return this.#store.transaction((tx) =>
      writeVersioned(tx, target.actor, this.#clock, this.versioned, {
        load: () => target.load?.(tx) ?? this.find(tx, target.project, target.key),
        ifMatch: target.ifMatch,
        change: (stored) => change(stored, tx),
      }),
    );
  }
}

/**
 * The service of a project-keyed kind: its read by key and its delete are here, each reading the
 * stored resource through `stored` (which a kind that writes only some of its resources narrows);
 * the service writes its list, `create` and `patch`, which build what only it knows.
 */
export abstract class ProjectKeyedService<
  R extends ProjectResource,
  Roles extends ProjectStore & AuditRoles,
> {
  protected readonly resources: ProjectKeyedResources<R, Roles>;
  protected readonly store: WithTransactions<Roles>;
  protected readonly clock: Clock;

  constructor(store: WithTransactions<Roles>, clock: Clock, kind: ProjectKeyedKind<R, Roles>) {
    this.resources = new ProjectKeyedResources(store, clock, kind);
    this.store = store;
    this.clock = clock;
  }

  get(actor: Actor, projectIdOrKey: string, key: string): Promise<R> {
    return this.resources.get(actor, projectIdOrKey, key);
  }

  async delete(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    ifMatch: number | undefined,
  ): Promise<void> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    await this.resources.delete(this.target(actor, project, key, ifMatch, 'deleted'));
  }

  /** The stored resource an update or delete writes, read in its transaction. */
  protected stored(tx: Roles, _actor: Actor, project: Project, key: string, _how: Write): Promise<R> {
    return this.resources.find(tx, project, key);
  }

  /** What `ProjectKeyedResources` needs to update or delete the resource, read through `stored`. */
  protected target(
    actor: Actor,
    project: Project,
    key: string,
    ifMatch: number | undefined,
    how: Write,
  ): StoredTarget<R, Roles> {
    return { actor, project, key, ifMatch, load: (tx) => this.stored(tx, actor, project, key, how) };
  }
}

/** A kind whose rows list without a filter of their own (metrics, release templates). */
export interface ListedKind<R extends ProjectResource, Roles> extends ProjectKeyedKind<R, Roles> {
  readonly rows: (tx: Roles) => ProjectKeyedStore<R>;
}

/** The service of a kind whose list has no filter of its own (metrics, release templates). */
export abstract class ListedService<
  R extends ProjectResource,
  Roles extends ProjectStore & AuditRoles,
> extends ProjectKeyedService<R, Roles> {
  readonly #kind: ListedKind<R, Roles>;

  constructor(store: WithTransactions<Roles>, clock: Clock, kind: ListedKind<R, Roles>) {
    super(store, clock, kind);
    this.#kind = kind;
  }

  list(actor: Actor, projectIdOrKey: string, page: PageRequest): Promise<Page<R>> {
    return this.resources.list(actor, projectIdOrKey, page, (id, p) =>
      this.#kind.rows(this.store).list(id, p),
    );
  }
}
