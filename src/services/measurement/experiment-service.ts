import { authorize } from '../../access/access-rules.ts';
import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { conflict } from '../../domain/errors.ts';
import {
  DEFAULT_ALPHA,
  type Experiment,
  type ExperimentAnalysis,
  type ExperimentStatus,
  metricKeysOf,
} from '../../domain/experiment.ts';
import { NO_RUNNING_EXPERIMENTS, type RunningExperiments } from '../../domain/exposure.ts';
import type { Project } from '../../domain/project.ts';
import type { CreateExperimentInput, ExperimentPatch } from '../../domain/schemas/experiment-input.ts';
import type { SnapshotRegistry } from '../../plane/snapshots.ts';
import type {
  ExperimentRole,
  FlagStore,
  MetricRole,
  Page,
  PageRequest,
  PendingChangeRole,
  ProjectStore,
  WithTransactions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { checkIfMatch } from '../core/if-match.ts';
import { firstVersion, nextVersion } from '../core/keyed-resource.ts';
import { type ProjectKeyedKind, ProjectKeyedService } from '../core/project-keyed-resources.ts';
import { type AuditRoles, writeVersioned } from '../core/versioned-write.ts';
import type { Approval, Gated } from '../core/write-gate.ts';
import { runWrite } from '../core/write-pipeline.ts';
import { validateExperiment } from './validate-experiment.ts';

/** The store roles experiment use cases name: the project and its flags, the gate's, metrics, experiments. */
export type ExperimentRoles = ProjectStore &
  FlagStore &
  AuditRoles &
  PendingChangeRole &
  MetricRole &
  ExperimentRole;

/** Experiments as a project-keyed resource, each of one environment: audited as `experiment.created`, `.started`, …. */
const EXPERIMENTS: ProjectKeyedKind<Experiment, ExperimentRoles> = {
  type: 'experiment',
  rows: (tx) => tx.experiments,
  environmentOf: (experiment) => experiment.environment,
};

/** How a start or stop runs: through the gate, or approved already (a change request's apply). */
export interface RunOptions {
  readonly approval?: Approval | undefined;
  readonly ifMatch?: number | undefined;
  /** The approved change request's mark, written in the same transaction (its details go in the audit event). */
  readonly claim?: ((tx: ExperimentRoles) => Promise<Readonly<Record<string, unknown>>>) | undefined;
}

/** A start or a stop, as routes and approved change requests call them. */
type Run = (
  actor: Actor,
  projectIdOrKey: string,
  key: string,
  options?: RunOptions,
) => Promise<Gated<Experiment>>;

export interface ExperimentDeps {
  readonly store: WithTransactions<ExperimentRoles>;
  readonly snapshots: SnapshotRegistry;
  readonly clock?: Clock;
  /** Other measured comparisons (release plans): a flag runs at most one in an environment. */
  readonly comparisons?: RunningExperiments;
  /** Told after a start or stop is written, so this node measures from its next evaluation. */
  readonly changed?: () => Promise<void>;
}

function analysisOf(input: CreateExperimentInput['analysis'], base?: ExperimentAnalysis): ExperimentAnalysis {
  return {
    method: input?.method ?? base?.method ?? 'frequentist',
    alpha: input?.alpha ?? base?.alpha ?? DEFAULT_ALPHA,
    sequential: input?.sequential ?? base?.sequential ?? false,
  };
}

const metricsOf = (input: CreateExperimentInput['metrics']) => ({
  primary: input.primary,
  secondary: input.secondary ?? [],
  guardrails: input.guardrails ?? [],
});

/** A merge patch applied to a draft: null puts a field back to its default. */
function merged(stored: Experiment, patch: ExperimentPatch, at: string): Experiment {
  return {
    ...nextVersion(stored, patch, at),
    control: patch.control ?? stored.control,
    treatments: patch.treatments ?? stored.treatments,
    metrics:
      patch.metrics === undefined
        ? stored.metrics
        : {
            primary: patch.metrics.primary,
            secondary: patch.metrics.secondary ?? stored.metrics.secondary,
            guardrails: patch.metrics.guardrails ?? stored.metrics.guardrails,
          },
    analysis: patch.analysis === undefined ? stored.analysis : analysisOf(patch.analysis, stored.analysis),
    cuped: patch.cuped ?? stored.cuped,
  };
}

/**
 * Experiments of a project (docs/measurement.md): viewers read them, editors of the experiment's
 * environment set up drafts; starting and stopping change what is measured in that environment,
 * so they pass the one gate (a 202 change request where approvals are required). Every write is
 * audited, and announced to webhooks, in its transaction.
 */
export class ExperimentService extends ProjectKeyedService<Experiment, ExperimentRoles> {
  readonly #deps: ExperimentDeps & { readonly clock: Clock };

  constructor(deps: ExperimentDeps) {
    const clock = deps.clock ?? systemClock;
    super(deps.store, clock, EXPERIMENTS);
    this.#deps = { ...deps, clock };
  }

  list(
    actor: Actor,
    projectIdOrKey: string,
    filter: { readonly status?: ExperimentStatus | undefined },
    page: PageRequest,
  ): Promise<Page<Experiment>> {
    return this.resources.list(actor, projectIdOrKey, page, (id, p) =>
      this.store.experiments.list(id, filter, p),
    );
  }

  async create(actor: Actor, projectIdOrKey: string, input: CreateExperimentInput): Promise<Experiment> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    authorize(actor.principal, project.id, 'editor', input.environment);
    const experiment: Experiment = {
      ...firstVersion('exp', input, isoTime(this.clock)),
      projectId: project.id,
      flag: input.flag,
      environment: input.environment,
      control: input.control,
      treatments: input.treatments,
      metrics: metricsOf(input.metrics),
      analysis: analysisOf(input.analysis),
      cuped: input.cuped ?? false,
      status: 'draft',
      startedAt: null,
      stoppedAt: null,
    };
    return this.resources.create(actor, project, experiment, (tx) => this.#validate(tx, experiment));
  }

  /** Changes a draft; a running or stopped experiment keeps what it was measured with. */
  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: ExperimentPatch,
    ifMatch: number | undefined,
  ): Promise<Experiment> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    return this.resources.update(this.target(actor, project, key, ifMatch, 'changed'), async (stored, tx) => {
      const next = merged(stored, patch, isoTime(this.clock));
      await this.#validate(tx, next);
      return next;
    });
  }

  /** Starts a draft: units served its variants are exposed to it from then on. */
  readonly start: Run = (actor, projectIdOrKey, key, options = {}) =>
    this.#run(actor, projectIdOrKey, key, options, 'running');

  /** Stops a running experiment: no unit is exposed to it any more, and its results stay. */
  readonly stop: Run = (actor, projectIdOrKey, key, options = {}) =>
    this.#run(actor, projectIdOrKey, key, options, 'stopped');

  async #run(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    options: RunOptions,
    to: 'running' | 'stopped',
  ): Promise<Gated<Experiment>> {
    const { clock } = this.#deps;
    const project = await this.resources.project(actor, projectIdOrKey, 'viewer');
    const from: ExperimentStatus = to === 'running' ? 'draft' : 'running';
    const outcome = await runWrite({ ...this.#deps, store: this.store }, actor, {
      approval: options.approval,
      prepare: async (tx) => {
        const stored = await this.resources.find(tx, project, key);
        authorize(actor.principal, project.id, 'editor', stored.environment);
        if (stored.status !== from) {
          throw conflict(
            `The experiment "${key}" is ${stored.status}: only a ${from} experiment can be ${to === 'running' ? 'started' : 'stopped'}.`,
          );
        }
        checkIfMatch(options.ifMatch, stored.version);
        if (to === 'running') await this.#startable(tx, stored);
        return { projectId: project.id, stored };
      },
      gated: ({ stored }) => ({
        kind: to === 'running' ? 'experiment.start' : 'experiment.stop',
        environment: stored.environment,
        environments: [stored.environment],
        patch: { experiment: stored.key },
        changes: [{ path: '/status', before: stored.status, after: to }],
        baseVersion: stored.version,
      }),
      apply: async (tx, { stored }) => {
        const details = await options.claim?.(tx);
        const at = isoTime(clock);
        return writeVersioned(tx, actor, clock, this.resources.versioned, {
          load: async () => stored,
          change: async () => ({
            next: {
              ...stored,
              status: to,
              ...(to === 'running' ? { startedAt: at } : { stoppedAt: at }),
              version: stored.version + 1,
              updatedAt: at,
            },
            action: to === 'running' ? 'experiment.started' : 'experiment.stopped',
            environment: stored.environment,
            details,
          }),
        });
      },
    });
    if ('applied' in outcome) await this.#deps.changed?.();
    return outcome;
  }

  /** A draft still valid now, on a flag that is not archived and that no other comparison measures there. */
  async #startable(tx: ExperimentRoles, experiment: Experiment): Promise<void> {
    await this.#validate(tx, experiment);
    // Locked: two starts on the same flag queue here, and the second sees the first running.
    const flag = await tx.findFlagByKey(experiment.projectId, experiment.flag, { forUpdate: true });
    if (flag?.archived === true) {
      throw conflict(`The flag "${experiment.flag}" is archived: an experiment on it cannot start.`);
    }
    const running = await tx.experiments.runningOn(
      experiment.projectId,
      experiment.environment,
      experiment.flag,
    );
    const other =
      running?.key ??
      (this.#deps.comparisons ?? NO_RUNNING_EXPERIMENTS).covering(
        experiment.projectId,
        experiment.environment,
        experiment.flag,
      )?.key;
    if (other !== undefined) {
      throw conflict(
        `The flag "${experiment.flag}" is measured in "${experiment.environment}" already (by "${other}"): one comparison at a time per flag and environment.`,
      );
    }
  }

  async #validate(tx: ExperimentRoles, experiment: Experiment): Promise<void> {
    const [flag, environments, metrics] = await Promise.all([
      tx.findFlagByKey(experiment.projectId, experiment.flag),
      tx.listEnvironments(experiment.projectId),
      Promise.all(metricKeysOf(experiment.metrics).map((k) => tx.metrics.findByKey(experiment.projectId, k))),
    ]);
    validateExperiment(experiment, {
      flag,
      environments: new Set(environments.map((e) => e.key)),
      metricKeys: new Set(metrics.flatMap((m) => (m === undefined ? [] : [m.key]))),
    });
  }

  /** Only a draft is changed or deleted, by an editor of its environment: a run keeps what it measured. */
  protected override async stored(
    tx: ExperimentRoles,
    actor: Actor,
    project: Project,
    key: string,
    how: 'changed' | 'deleted',
  ): Promise<Experiment> {
    const stored = await this.resources.find(tx, project, key);
    authorize(actor.principal, project.id, 'editor', stored.environment);
    if (stored.status !== 'draft') {
      throw conflict(`The experiment "${key}" is ${stored.status}: only a draft can be ${how}.`);
    }
    return stored;
  }
}
