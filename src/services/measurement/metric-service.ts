import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { DEFAULT_WINDOW_HOURS, type Metric } from '../../domain/metric.ts';
import type { CreateMetricInput, MetricPatch } from '../../domain/schemas/metric-input.ts';
import type { MetricRole, ProjectStore, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { firstVersion, nextVersion } from '../core/keyed-resource.ts';
import { type ListedKind, ListedService } from '../core/project-keyed-resources.ts';
import type { AuditRoles } from '../core/versioned-write.ts';

/** The store roles metric use cases name: the project, the metrics, the audit log and its webhooks. */
export type MetricRoles = ProjectStore & MetricRole & AuditRoles;

/** Metrics as a project-keyed resource: audited as `metric.created`, `.updated`, `.deleted`. */
const METRICS: ListedKind<Metric, MetricRoles> = { type: 'metric', rows: (tx) => tx.metrics };

/** A merge patch applied: null puts a field back to its default. */
function merged(stored: Metric, patch: MetricPatch, at: string): Metric {
  return {
    ...nextVersion(stored, patch, at),
    event: patch.event ?? stored.event,
    kind: patch.kind ?? stored.kind,
    window: patch.window === undefined ? stored.window : (patch.window ?? DEFAULT_WINDOW_HOURS),
    goal: patch.goal === undefined ? stored.goal : (patch.goal ?? 'increase'),
  };
}

/**
 * Metric definitions of a project (docs/measurement.md): viewers read them, editors write them,
 * each write audited (and announced to webhooks) in its transaction. They change no evaluation,
 * so they do not pass the approval gate.
 */
export class MetricService extends ListedService<Metric, MetricRoles> {
  constructor(store: WithTransactions<MetricRoles>, clock: Clock = systemClock) {
    super(store, clock, METRICS);
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateMetricInput): Promise<Metric> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    return this.resources.create(actor, project, {
      ...firstVersion('met', input, isoTime(this.clock)),
      projectId: project.id,
      event: input.event,
      kind: input.kind,
      window: input.window ?? DEFAULT_WINDOW_HOURS,
      goal: input.goal ?? 'increase',
    });
  }

  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: MetricPatch,
    ifMatch: number | undefined,
  ): Promise<Metric> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    return this.resources.update(this.target(actor, project, key, ifMatch, 'changed'), async (stored) =>
      merged(stored, patch, isoTime(this.clock)),
    );
  }
}
