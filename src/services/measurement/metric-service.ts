import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { notFound } from '../../domain/errors.ts';
import { DEFAULT_WINDOW_HOURS, type Metric } from '../../domain/metric.ts';
import type { Project } from '../../domain/project.ts';
import type { CreateMetricInput, MetricPatch } from '../../domain/schemas/metric-input.ts';
import type { MetricRole, Page, PageRequest, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { firstVersion, keyedInProject, takenIn } from '../core/keyed-resource.ts';
import { accessProject } from '../core/project-access.ts';
import { type AuditRoles, type VersionedKind, writeVersioned } from '../core/versioned-write.ts';

/** The store roles metric use cases name: the project, the metrics, the audit log and its webhooks. */
export type MetricRoles = ProjectStore & MetricRole & AuditRoles;

/** Metrics as the one versioned write stores and audits them (`metric.created`, `.updated`, `.deleted`). */
const METRICS: VersionedKind<Metric, MetricRoles> = {
  ...keyedInProject('metric'),
  insert: (tx, metric) => tx.metrics.insertMetric(metric),
  update: (tx, metric, expectedVersion) => tx.metrics.updateMetric(metric, expectedVersion),
  remove: (tx, metric) => tx.metrics.deleteMetric(metric.id),
};

const missing = (project: Project, key: string) =>
  notFound(`No metric "${key}" in project "${project.key}".`);

/** A merge patch applied: null puts a field back to its default. */
function merged(stored: Metric, patch: MetricPatch, at: string): Metric {
  return {
    ...stored,
    name: patch.name === undefined ? stored.name : (patch.name ?? stored.key),
    description: patch.description === undefined ? stored.description : (patch.description ?? ''),
    event: patch.event ?? stored.event,
    kind: patch.kind ?? stored.kind,
    window: patch.window === undefined ? stored.window : (patch.window ?? DEFAULT_WINDOW_HOURS),
    goal: patch.goal === undefined ? stored.goal : (patch.goal ?? 'increase'),
    version: stored.version + 1,
    updatedAt: at,
  };
}

/**
 * Metric definitions of a project (docs/measurement.md): viewers read them, editors write them,
 * each write audited (and announced to webhooks) in its transaction. They change no evaluation,
 * so they do not pass the approval gate.
 */
export class MetricService {
  readonly #store: WithTransactions<MetricRoles>;
  readonly #clock: Clock;

  constructor(store: WithTransactions<MetricRoles>, clock: Clock = systemClock) {
    this.#store = store;
    this.#clock = clock;
  }

  async list(actor: Actor, projectIdOrKey: string, page: PageRequest): Promise<Page<Metric>> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#store.metrics.listMetrics(project.id, page);
  }

  async get(actor: Actor, projectIdOrKey: string, key: string): Promise<Metric> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    const metric = await this.#store.metrics.findMetricByKey(project.id, key);
    if (metric === undefined) throw missing(project, key);
    return metric;
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateMetricInput): Promise<Metric> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    const metric: Metric = {
      ...firstVersion('met', input, isoTime(this.#clock)),
      projectId: project.id,
      event: input.event,
      kind: input.kind,
      window: input.window ?? DEFAULT_WINDOW_HOURS,
      goal: input.goal ?? 'increase',
    };
    return this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, METRICS, {
        create: async () => ({
          next: metric,
          action: 'metric.created',
          taken: takenIn(project, 'metric', metric.key),
        }),
      }),
    );
  }

  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: MetricPatch,
    ifMatch: number | undefined,
  ): Promise<Metric> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    return this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, METRICS, {
        load: () => this.#load(tx, project, key),
        ifMatch,
        change: async (stored) => ({
          next: merged(stored, patch, isoTime(this.#clock)),
          action: 'metric.updated',
        }),
      }),
    );
  }

  async delete(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    ifMatch: number | undefined,
  ): Promise<void> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, METRICS, {
        load: () => this.#load(tx, project, key),
        ifMatch,
        change: async () => ({ next: null, action: 'metric.deleted' }),
      }),
    );
  }

  async #load(tx: MetricRoles, project: Project, key: string): Promise<Metric> {
    const metric = await tx.metrics.findMetricByKey(project.id, key);
    if (metric === undefined) throw missing(project, key);
    return metric;
  }
}
