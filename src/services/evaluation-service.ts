import { DomainError, validationFailed } from '../domain/errors.ts';
import type { EvaluationContext, EvaluationDetail } from '../domain/evaluation-result.ts';
import type { CompiledEnvironment } from '../evaluation/compile-environment.ts';
import type { EvaluationCounter } from '../insights/evaluation-counter.ts';
import { EvaluationCounts } from '../observability/evaluation-counts.ts';
import type { ProjectStore } from '../storage/store.ts';
import { authorize } from './access.ts';
import type { Actor } from './actor.ts';
import { accessProject } from './project-access.ts';
import type { SnapshotRegistry } from './snapshots.ts';

export interface EvaluationScope {
  /** Needed with an organisation-wide key; a project key evaluates in its own project. */
  readonly project?: string | undefined;
  readonly environment?: string | undefined;
}

/** Evaluates flags from the in-memory snapshots; the database is read only to resolve a project once. */
export class EvaluationService {
  readonly #store: ProjectStore;
  readonly #snapshots: SnapshotRegistry;
  /** What /metrics reports: evaluations served, by project, environment and reason. */
  readonly counts = new EvaluationCounts();
  /** Per-flag counts for insights; null when they are off. Every evaluation route passes through evaluate/evaluateAll. */
  readonly #counter: EvaluationCounter | null;

  constructor(store: ProjectStore, snapshots: SnapshotRegistry, counter: EvaluationCounter | null = null) {
    this.#store = store;
    this.#snapshots = snapshots;
    this.#counter = counter;
  }

  /**
   * The compiled environment a request may evaluate in, after the authorisation checks of SPEC §5.
   * Evaluations made on it directly are not counted in /metrics: serve through evaluate/evaluateAll.
   */
  async environmentFor(actor: Actor, scope: EvaluationScope): Promise<CompiledEnvironment> {
    return (await this.resolve(actor, scope)).compiled;
  }

  /** The project, environment and compiled environment a request may evaluate in (SPEC §5 checks). */
  async resolve(
    actor: Actor,
    scope: EvaluationScope,
  ): Promise<{ projectId: string; environment: string; compiled: CompiledEnvironment }> {
    const environment = scope.environment ?? 'production';
    const projectId = await this.#projectId(actor, scope.project);
    authorize(actor.principal, projectId, 'evaluator', environment);
    const compiled =
      this.#snapshots.peek(projectId, environment) ??
      (await this.#snapshots.environment(projectId, environment));
    if (compiled === null)
      throw new DomainError('not_found', `No environment "${environment}" in this project.`);
    return { projectId, environment, compiled };
  }

  /** Whether the project (by id) has the environment, as this node's snapshots know it. */
  async hasEnvironment(projectId: string, environment: string): Promise<boolean> {
    return (await this.#snapshots.environment(projectId, environment)) !== null;
  }

  async #projectId(actor: Actor, project: string | undefined): Promise<string> {
    const { principal } = actor;
    if (project === undefined) {
      if (principal.projectId !== null) return principal.projectId;
      throw validationFailed('An organisation-wide key must name the project: add ?project=<key or id>.', [
        { path: 'querystring:/project', message: 'is required with an organisation-wide key' },
      ]);
    }
    const cached = this.#snapshots.projectIdFor(project);
    if (cached !== undefined) return cached;
    const { id } = await accessProject(this.#store, principal, project, 'evaluator');
    this.#snapshots.rememberProjectId(project, id);
    return id;
  }

  async evaluate(
    actor: Actor,
    flagKey: string,
    context: EvaluationContext,
    scope: EvaluationScope,
  ): Promise<EvaluationDetail> {
    const { projectId, environment, compiled } = await this.resolve(actor, scope);
    const result = compiled.evaluate(flagKey, context, Math.floor(Date.now() / 1000));
    if (result === undefined)
      throw new DomainError('flag_not_found', `No flag "${flagKey}" in this project.`);
    this.counts.count(projectId, environment, result.reason);
    this.#counter?.count(projectId, environment, result);
    return result;
  }

  /** The playground's evaluation (viewer role): the result with the rule or target that decided it. */
  async explain(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    context: EvaluationContext,
    environment: string,
  ): Promise<EvaluationDetail> {
    const project = await accessProject(this.#store, actor.principal, projectIdOrKey, 'viewer', environment);
    return this.evaluate(actor, flagKey, context, { project: project.id, environment });
  }

  async evaluateAll(
    actor: Actor,
    context: EvaluationContext,
    scope: EvaluationScope,
    flagKeys?: readonly string[],
  ): Promise<EvaluationDetail[]> {
    const { projectId, environment, compiled } = await this.resolve(actor, scope);
    const results = compiled.evaluateAll(context, Math.floor(Date.now() / 1000), flagKeys);
    this.counts.countAll(projectId, environment, results);
    this.#counter?.countAll(projectId, environment, results);
    return results;
  }
}
