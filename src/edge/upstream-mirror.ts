import { notFound } from '../domain/errors.ts';
import type { Flag } from '../domain/flag.ts';
import type { Project } from '../domain/project.ts';
import type { EdgeProject } from '../services/serving/edge-upstream.ts';
import type { EvaluationSource, KeyLookup, ProjectContents, StoredApiKey } from '../storage/store.ts';

/** What an edge holds of its upstream, as written to its cache: the projects and the keys. */
export interface MirrorState {
  readonly projects: readonly EdgeProject[];
  readonly keys: readonly StoredApiKey[];
}

/**
 * What the upstream stream delivered, in memory: the edge's stand-in for a database (decision
 * 1983). The node's own snapshot registry and key registry read it as they read a store, so an
 * edge evaluates, authenticates and streams with the node's code, not a copy of it.
 */
export class UpstreamMirror
  implements EvaluationSource, Pick<KeyLookup, 'listActiveApiKeys' | 'apiKeysRevision'>
{
  readonly #projects = new Map<string, EdgeProject>();
  #keys: readonly StoredApiKey[] = [];
  #keysRevision = 0;

  /** Whether anything came, from upstream or the cache: the edge can answer. */
  get loaded(): boolean {
    return this.#keysRevision > 0;
  }

  put(project: EdgeProject): void {
    this.#projects.set(project.project.id, project);
  }

  remove(projectId: string): void {
    this.#projects.delete(projectId);
  }

  setKeys(keys: readonly StoredApiKey[]): void {
    this.#keys = keys;
    this.#keysRevision++;
  }

  revisions(): ReadonlyMap<string, number> {
    return new Map([...this.#projects].map(([id, p]) => [id, p.revision]));
  }

  state(): MirrorState {
    return { projects: [...this.#projects.values()], keys: this.#keys };
  }

  restore(state: MirrorState): void {
    this.#projects.clear();
    for (const project of state.projects) this.put(project);
    this.setKeys(state.keys);
  }

  findProject(idOrKey: string): Project | undefined {
    const byId = this.#projects.get(idOrKey);
    if (byId !== undefined) return byId.project;
    for (const { project } of this.#projects.values()) if (project.key === idOrKey) return project;
    return undefined;
  }

  async readProject(projectId: string): Promise<ProjectContents> {
    const project = this.#projects.get(projectId);
    // Not a fault of the edge: upstream has not sent it (a project its upstream has not loaded yet).
    if (project === undefined)
      throw notFound(`Project ${projectId} has not reached this edge from its upstream.`);
    return project;
  }

  async listRevisions(): Promise<ReadonlyMap<string, number>> {
    return this.revisions();
  }

  async readFlags(flagIds: readonly string[]): Promise<readonly Flag[]> {
    const wanted = new Set(flagIds);
    return [...this.#projects.values()].flatMap((project) => project.flags.filter((f) => wanted.has(f.id)));
  }

  async listProjectKeys(): Promise<readonly { readonly id: string; readonly key: string }[]> {
    return [...this.#projects.values()].map(({ project }) => ({ id: project.id, key: project.key }));
  }

  async listActiveApiKeys(): Promise<readonly StoredApiKey[]> {
    return this.#keys;
  }

  async apiKeysRevision(): Promise<number> {
    return this.#keysRevision;
  }
}
