import type { AuditEvent, AuditFilter } from '../../../src/domain/audit-event.ts';
import type { Page, PageRequest } from '../../../src/domain/page.ts';
import type { Environment, Project } from '../../../src/domain/project.ts';
import type { AuditRoles } from '../../../src/services/core/versioned-write.ts';
import type { ProjectContents } from '../../../src/storage/store.ts';
import {
  type EvaluationSource,
  type ProjectStore,
  UniqueViolation,
  type WithTransactions,
} from '../../../src/storage/store.ts';
import { InMemoryWebhooks } from './in-memory-webhooks.ts';

/** A page of `items` after the offset `cursor` holds (the fake's cursors are offsets). */
export function pageOf<T>(items: readonly T[], page: PageRequest): Page<T> {
  const from = Number(page.cursor ?? 0);
  const to = from + page.limit;
  return { items: items.slice(from, to), ...(to < items.length ? { nextCursor: String(to) } : {}) };
}

const matches = (event: AuditEvent, filter: AuditFilter): boolean =>
  (filter.action === undefined || event.action === filter.action) &&
  (filter.actorId === undefined || event.actor.id === filter.actorId) &&
  (filter.resourceType === undefined || event.resource.type === filter.resourceType) &&
  (filter.resourceId === undefined || [filter.resourceId].flat().includes(event.resource.id));

interface State {
  projects: Map<string, Project>;
  environments: Map<string, Environment>;
  revisions: Map<string, number>;
  audit: { projectId: string | null; event: AuditEvent }[];
}

/**
 * Projects, their environments and revisions, the audit log and webhooks, in memory: the store roles
 * project, environment and webhook use cases name. Keys are unique as the databases hold them; a
 * transaction whose work throws leaves nothing it wrote behind. No flags or segments: a project's
 * contents are its environments.
 */
export class InMemoryProjectStore implements WithTransactions<ProjectStore & AuditRoles>, EvaluationSource {
  readonly webhooks = new InMemoryWebhooks();
  #state: State = { projects: new Map(), environments: new Map(), revisions: new Map(), audit: [] };

  /** Every audit event written, oldest first, with the project whose log holds it. */
  get audit(): readonly { readonly projectId: string | null; readonly event: AuditEvent }[] {
    return this.#state.audit;
  }

  async transaction<T>(work: (tx: WithTransactions<ProjectStore & AuditRoles>) => Promise<T>): Promise<T> {
    const saved = this.#copy();
    try {
      return await work(this);
    } catch (error) {
      this.#state = saved.state;
      this.webhooks.state = saved.webhooks;
      throw error;
    }
  }

  savepoint<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  async listProjects(page: PageRequest): Promise<Page<Project>> {
    const all = [...this.#state.projects.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
    return pageOf(all, page);
  }

  async findProject(idOrKey: string): Promise<Project | undefined> {
    return [...this.#state.projects.values()].find((p) => p.id === idOrKey || p.key === idOrKey);
  }

  async insertProject(project: Project): Promise<void> {
    if ([...this.#state.projects.values()].some((p) => p.key === project.key)) throw new UniqueViolation();
    this.#state.projects.set(project.id, project);
    this.#state.revisions.set(project.id, 1);
  }

  async updateProject(project: Project, expectedVersion: number): Promise<boolean> {
    if (this.#state.projects.get(project.id)?.version !== expectedVersion) return false;
    this.#state.projects.set(project.id, project);
    return true;
  }

  async deleteProject(id: string): Promise<boolean> {
    for (const environment of this.#environmentsOf(id)) this.#state.environments.delete(environment.id);
    this.#state.revisions.delete(id);
    return this.#state.projects.delete(id);
  }

  async bumpRevision(projectId: string): Promise<number> {
    const next = (this.#state.revisions.get(projectId) ?? 0) + 1;
    this.#state.revisions.set(projectId, next);
    return next;
  }

  async listEnvironments(projectId: string): Promise<readonly Environment[]> {
    return this.#environmentsOf(projectId);
  }

  async findEnvironment(projectId: string, key: string): Promise<Environment | undefined> {
    return this.#environmentsOf(projectId).find((e) => e.key === key);
  }

  async insertEnvironment(environment: Environment): Promise<void> {
    if (this.#environmentsOf(environment.projectId).some((e) => e.key === environment.key)) {
      throw new UniqueViolation();
    }
    this.#state.environments.set(environment.id, environment);
  }

  async updateEnvironment(environment: Environment, expectedVersion: number): Promise<boolean> {
    if (this.#state.environments.get(environment.id)?.version !== expectedVersion) return false;
    this.#state.environments.set(environment.id, environment);
    return true;
  }

  async deleteEnvironment(id: string): Promise<boolean> {
    return this.#state.environments.delete(id);
  }

  async requiredApprovals(projectId: string): Promise<ReadonlyMap<string, number>> {
    return new Map(this.#environmentsOf(projectId).map((e) => [e.key, e.requiredApprovals ?? 0]));
  }

  async setRequiredApprovals(environmentId: string, count: number): Promise<void> {
    const environment = this.#state.environments.get(environmentId);
    if (environment !== undefined)
      this.#state.environments.set(environmentId, { ...environment, requiredApprovals: count });
  }

  async insertAuditEvent(projectId: string | null, event: AuditEvent): Promise<void> {
    this.#state.audit.push({ projectId, event });
  }

  async listAuditEvents(
    projectId: string | null,
    filter: AuditFilter,
    page: PageRequest,
  ): Promise<Page<AuditEvent>> {
    const events = this.#state.audit
      .filter((e) => (projectId === null || e.projectId === projectId) && matches(e.event, filter))
      .map((e) => e.event)
      .reverse();
    return pageOf(events, page);
  }

  async readProject(projectId: string): Promise<ProjectContents> {
    return {
      revision: this.#state.revisions.get(projectId) ?? 0,
      environments: this.#environmentsOf(projectId),
      flags: [],
      segments: [],
    };
  }

  async listRevisions(): Promise<ReadonlyMap<string, number>> {
    return new Map(this.#state.revisions);
  }

  async readFlags(): Promise<readonly never[]> {
    return [];
  }

  async listProjectKeys(): Promise<readonly { readonly id: string; readonly key: string }[]> {
    return [...this.#state.projects.values()].map(({ id, key }) => ({ id, key }));
  }

  /** In creation order, as the databases list them (ids sort by creation time). */
  #environmentsOf(projectId: string): Environment[] {
    return [...this.#state.environments.values()]
      .filter((e) => e.projectId === projectId)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  #copy(): { state: State; webhooks: InMemoryWebhooks['state'] } {
    return {
      state: {
        projects: new Map(this.#state.projects),
        environments: new Map(this.#state.environments),
        revisions: new Map(this.#state.revisions),
        audit: [...this.#state.audit],
      },
      webhooks: {
        webhooks: new Map(this.webhooks.state.webhooks),
        deliveries: [...this.webhooks.state.deliveries],
      },
    };
  }
}
