import type { Principal } from '../../domain/api-key.ts';
import { EDGE_ROLE } from '../../domain/api-key.ts';
import { forbidden } from '../../domain/errors.ts';
import type { Exposure } from '../../domain/exposure.ts';
import type { Flag } from '../../domain/flag.ts';
import type { Environment, Project } from '../../domain/project.ts';
import type { Segment } from '../../domain/segment.ts';
import type { KeyRegistry } from '../../plane/key-registry.ts';
import type { SnapshotRegistry } from '../../plane/snapshots.ts';
import type { StoredEvent } from '../../storage/event-store.ts';
import type { EvaluationCount } from '../../storage/insights-store.ts';
import type {
  EvaluationSource,
  InsightsRole,
  MeasurementRole,
  ProjectStore,
  StoredApiKey,
} from '../../storage/store.ts';

/**
 * The version of the upstream stream's messages (decision 1981). An edge refuses an upstream that
 * speaks another, naming FLAGSTAFF_UPSTREAM_URL, rather than serve what it cannot read.
 */
export const EDGE_PROTOCOL = 1;

/** One project as an edge serves it: its record, environments, flags and segments, at one revision. */
export interface EdgeProject {
  readonly project: Project;
  readonly revision: number;
  readonly environments: readonly Environment[];
  readonly flags: readonly Flag[];
  readonly segments: readonly Segment[];
}

/** What an edge forwards in one batch; `id` makes a retried batch count once (decision 1982). */
export interface EdgeBatch {
  readonly id: string;
  readonly events: readonly StoredEvent[];
  readonly exposures: readonly Exposure[];
  readonly counts: readonly EvaluationCount[];
}

/** Batch ids already taken, per node: enough for an edge's retries, which follow within minutes. */
const REMEMBERED_BATCHES = 100_000;

/** Organisation-wide edge keys find projects made since the last listing this often. */
const LIST_PROJECTS_MS = 1_000;

type UpstreamStore = EvaluationSource & Pick<ProjectStore, 'findProject'> & MeasurementRole & InsightsRole;

/**
 * What a node (or an edge, for chaining) gives the edges that follow it (SPEC §14): the
 * snapshots and key hashes of the edge key's scope, and the batches they forward. Only an
 * `edge` key is served here; the route's access rule asks for it by name as well.
 */
export class EdgeUpstreamService {
  readonly #store: UpstreamStore;
  readonly #snapshots: SnapshotRegistry;
  readonly #keys: KeyRegistry;
  /** Each project's payload at its latest revision, built once however many edges follow it. */
  readonly #built = new Map<string, Promise<EdgeProject>>();
  readonly #batches = new Set<string>();
  /** Every project's id, as last listed for organisation-wide edge keys. */
  #listed: { readonly at: number; readonly ids: Promise<readonly string[]> } | undefined;

  constructor(
    store: UpstreamStore,
    plane: { readonly snapshots: SnapshotRegistry; readonly keys: KeyRegistry },
  ) {
    this.#store = store;
    this.#snapshots = plane.snapshots;
    this.#keys = plane.keys;
  }

  /** Refuses every principal but an edge key. */
  check(principal: Principal): void {
    if (principal.role !== EDGE_ROLE) throw forbidden('This stream is for edge keys (role edge).');
  }

  /**
   * Loads the projects of the key's scope that nothing has yet (one created after this node
   * started is loaded on first use): their edges must not wait for an evaluation here to be sent
   * them. An organisation-wide key's scope is every project, listed at most once a second.
   */
  async loadScope(principal: Principal): Promise<void> {
    const ids = principal.projectId === null ? await this.#allProjects() : [principal.projectId];
    for (const id of ids) {
      if (this.#snapshots.revisionOf(id) !== undefined) continue;
      // A project that is gone stays out of the scope: its key is refused soon anyway.
      await this.#snapshots.definitions(id).catch(() => undefined);
    }
  }

  #allProjects(): Promise<readonly string[]> {
    const now = Date.now();
    if (this.#listed === undefined || now - this.#listed.at >= LIST_PROJECTS_MS) {
      const ids = this.#store
        .listRevisions()
        .then((revisions) => [...revisions.keys()])
        // The database away: what is loaded is the scope until it returns.
        .catch(() => this.#snapshots.loadedProjects());
      this.#listed = { at: now, ids };
    }
    return this.#listed.ids;
  }

  /** The loaded projects the key may read, by id, with their revisions. */
  projectsOf(principal: Principal): ReadonlyMap<string, number> {
    const projects = new Map<string, number>();
    for (const id of this.#snapshots.loadedProjects()) {
      if (principal.projectId !== null && principal.projectId !== id) continue;
      const revision = this.#snapshots.revisionOf(id);
      if (revision !== undefined) projects.set(id, revision);
    }
    return projects;
  }

  /** The project at its latest revision, narrowed to the key's environments; undefined once gone. */
  async project(principal: Principal, projectId: string): Promise<EdgeProject | undefined> {
    const revision = this.#snapshots.revisionOf(projectId);
    if (revision === undefined) return undefined;
    const cacheKey = `${projectId}@${revision}`;
    let built = this.#built.get(cacheKey);
    if (built === undefined) {
      built = this.#build(projectId);
      for (const key of this.#built.keys()) if (key.startsWith(`${projectId}@`)) this.#built.delete(key);
      this.#built.set(cacheKey, built);
      built.catch(() => this.#built.delete(cacheKey));
    }
    const whole = await built;
    return narrowed(whole, principal.environments);
  }

  /** The keys a client could present to the edge: those of its projects (or organisation-wide) sharing an environment. */
  keysOf(principal: Principal): readonly StoredApiKey[] {
    return this.#keys
      .list()
      .filter(
        (key) =>
          (principal.projectId === null || key.projectId === null || key.projectId === principal.projectId) &&
          (principal.environments === null ||
            key.environments === null ||
            key.environments.some((e) => principal.environments?.includes(e))),
      )
      .map(({ principal: _principal, ...key }) => key);
  }

  watchKeys(watcher: () => void): () => void {
    return this.#keys.watch(watcher);
  }

  subscribe(projectId: string, listener: () => void): () => void {
    return this.#snapshots.subscribe(projectId, listener);
  }

  /**
   * Stores one forwarded batch: events are idempotent by their ids; counts and exposures are
   * taken once per batch id on this node (decision 1982). Refuses what lies outside the key's scope.
   */
  async accept(principal: Principal, batch: EdgeBatch): Promise<{ readonly duplicate: boolean }> {
    this.check(principal);
    refuseOutsideScope(principal, batch);
    if (batch.events.length > 0) await this.#store.events.insertEvents(batch.events);
    if (this.#batches.has(batch.id)) return { duplicate: true };
    if (batch.exposures.length > 0) await this.#store.exposures.recordExposures(batch.exposures);
    if (batch.counts.length > 0) await this.#store.insights.addEvaluationCounts(batch.counts);
    this.#batches.add(batch.id);
    if (this.#batches.size > REMEMBERED_BATCHES) {
      const oldest = this.#batches.values().next().value;
      if (oldest !== undefined) this.#batches.delete(oldest);
    }
    return { duplicate: false };
  }

  async #build(projectId: string): Promise<EdgeProject> {
    const [project, contents] = await Promise.all([
      this.#store.findProject(projectId),
      this.#store.readProject(projectId),
    ]);
    if (project === undefined) throw new Error(`project ${projectId} is gone`);
    return { project, ...contents };
  }
}

/**
 * Throws `forbidden` when any item of a batch (read as sent, before validation: 403 comes before
 * 400) names a project or environment outside the edge key's scope.
 */
export function refuseOutsideScope(principal: Principal, batch: unknown): void {
  if (typeof batch !== 'object' || batch === null) return;
  const lists = ['events', 'exposures', 'counts'].map((name) => (batch as Record<string, unknown>)[name]);
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const item of list as { projectId?: unknown; environment?: unknown }[]) {
      if (typeof item !== 'object' || item === null) continue;
      const outside =
        (principal.projectId !== null && item.projectId !== principal.projectId) ||
        (principal.environments !== null && !principal.environments.includes(String(item.environment)));
      if (outside) throw forbidden('The batch holds items outside the edge key’s scope.');
    }
  }
}

/** Only the environments the key covers, in the environments list and in every flag. */
function narrowed(whole: EdgeProject, environments: readonly string[] | null): EdgeProject {
  if (environments === null) return whole;
  const covered = (key: string) => environments.includes(key);
  return {
    ...whole,
    environments: whole.environments.filter((e) => covered(e.key)),
    flags: whole.flags.map((flag) => ({
      ...flag,
      environments: Object.fromEntries(Object.entries(flag.environments).filter(([key]) => covered(key))),
    })),
  };
}
