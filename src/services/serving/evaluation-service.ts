import { type Clock, systemClock } from '../../domain/clock.ts';
import { flagNotFound, noSuchEnvironment, notFound, validationFailed } from '../../domain/errors.ts';
import type { EvaluationObserver, EvaluationObservers } from '../../domain/evaluation-observer.ts';
import type { EvaluationContext, EvaluationDetail } from '../../domain/evaluation-result.ts';
import type { Flag, TargetingRule } from '../../domain/flag.ts';
import { DEFAULT_ENVIRONMENT } from '../../domain/project.ts';
import type { CompiledEnvironment } from '../../evaluation/compile-environment.ts';
import type { SnapshotRegistry } from '../../plane/snapshots.ts';
import type { ProjectStore } from '../../storage/store.ts';
import { authorize } from '../core/access.ts';
import type { Actor } from '../core/actor.ts';
import { accessProject } from '../core/project-access.ts';

/** A project's environment, resolved and authorised for one request. */
export interface EvaluationTarget {
  /** Who asks: the observer learns the request an evaluation belongs to. */
  readonly actor: Actor;
  readonly projectId: string;
  readonly environment: string;
  readonly compiled: CompiledEnvironment;
}

export interface EvaluationScope {
  /** Needed with an organisation-wide key; a project key evaluates in its own project. */
  readonly project?: string | undefined;
  readonly environment?: string | undefined;
}

/** Evaluates flags from the in-memory snapshots; the database is read only to resolve a project once. */
export class EvaluationService implements EvaluationObservers {
  readonly #store: ProjectStore;
  readonly #snapshots: SnapshotRegistry;
  /**
   * Told of every evaluation served (the /metrics tally, insights, traces), wired by whoever
   * builds the node. Every evaluation an application is served passes through evaluateIn/evaluateAllIn.
   */
  #observers: readonly EvaluationObserver[] = [];
  /** Read once per evaluation and shared with the observers: a clock reading is not free on every machine. */
  readonly #clock: Clock;

  constructor(store: ProjectStore, snapshots: SnapshotRegistry, clock: Clock = systemClock) {
    this.#clock = clock;
    this.#store = store;
    this.#snapshots = snapshots;
  }

  /** Adds an observer of every evaluation served; returns its removal. */
  observe(observer: EvaluationObserver): () => void {
    this.#observers = [...this.#observers, observer];
    return () => {
      this.#observers = this.#observers.filter((o) => o !== observer);
    };
  }

  /**
   * Where a request evaluates: its project, environment and compiled snapshot, after the
   * authorisation of docs/product.md §5 (the route's, when it ran; else the same rules here). Resolve once
   * per request and evaluate there with `evaluateIn`/`evaluateAllIn`.
   */
  async target(actor: Actor, scope: EvaluationScope): Promise<EvaluationTarget> {
    const known = this.targetInMemory(actor, scope);
    if (known !== undefined) return known;
    const environment = scope.environment ?? DEFAULT_ENVIRONMENT;
    const projectId =
      this.#knownProjectId(actor, scope.project) ?? (await this.#lookUpProjectId(actor, scope));
    this.#authorize(actor, projectId, environment);
    const compiled =
      this.#snapshots.peek(projectId, environment) ??
      (await this.#snapshots.environment(projectId, environment));
    if (compiled === null) throw noSuchEnvironment(environment);
    return { actor, projectId, environment, compiled };
  }

  /**
   * `target` without waiting, when the project reference and the snapshot are already in memory
   * (every request once a node is loaded); undefined when only `target` can tell. Throws what
   * `target` throws. The evaluation route calls it first: no promise on its hot path (decision 0207).
   */
  targetInMemory(actor: Actor, scope: EvaluationScope): EvaluationTarget | undefined {
    const projectId = this.#knownProjectId(actor, scope.project);
    if (projectId === undefined) return undefined;
    const environment = scope.environment ?? DEFAULT_ENVIRONMENT;
    this.#authorize(actor, projectId, environment);
    const compiled = this.#snapshots.peek(projectId, environment);
    return compiled === undefined ? undefined : { actor, projectId, environment, compiled };
  }

  /** The checks of docs/product.md §5, unless the route's access check made them already (its grant). */
  #authorize(actor: Actor, projectId: string, environment: string): void {
    if (actor.grant === undefined) authorize(actor.principal, projectId, 'evaluator', environment);
  }

  /** Whether the project (by id) has the environment, as this node's snapshots know it. */
  async hasEnvironment(projectId: string, environment: string): Promise<boolean> {
    return (await this.#snapshots.environment(projectId, environment)) !== null;
  }

  /** The project the request names, when known without the database; undefined when it must be looked up. */
  #knownProjectId(actor: Actor, project: string | undefined): string | undefined {
    const { principal, grant } = actor;
    if (grant?.projectId !== undefined) return grant.projectId;
    if (project === undefined) {
      if (principal.projectId !== null) return principal.projectId;
      throw validationFailed('An organisation-wide key must name the project: add ?project=<key or id>.', [
        { path: 'querystring:/project', message: 'is required with an organisation-wide key' },
      ]);
    }
    // The route's check found no such project (a project key would have got 403 there).
    if (grant !== undefined) throw notFound(`No project "${project}".`);
    return this.#snapshots.projectIdFor(project);
  }

  async #lookUpProjectId(actor: Actor, scope: EvaluationScope): Promise<string> {
    const project = scope.project as string;
    const { id } = await accessProject(this.#store, actor, project, 'evaluator');
    this.#snapshots.rememberProjectId(project, id);
    return id;
  }

  /** Evaluates one flag; its observers are told. */
  evaluateIn(target: EvaluationTarget, flagKey: string, context: EvaluationContext): EvaluationDetail {
    const now = this.#clock();
    const result = evaluateOne(target, flagKey, context, now);
    const observers = this.#observers;
    const unit = typeof context.targetingKey === 'string' ? context.targetingKey : undefined;
    for (let i = 0; i < observers.length; i++)
      (observers[i] as EvaluationObserver).served(target, result, now, unit);
    return result;
  }

  /** Evaluates every live flag, or the listed ones; its observers are told. */
  evaluateAllIn(
    target: EvaluationTarget,
    context: EvaluationContext,
    flagKeys?: readonly string[],
  ): EvaluationDetail[] {
    const now = this.#clock();
    const results = target.compiled.evaluateAll(context, Math.floor(now / 1000), flagKeys);
    const observers = this.#observers;
    for (let i = 0; i < observers.length; i++)
      (observers[i] as EvaluationObserver).servedAll(target, results, now);
    return results;
  }

  async evaluate(
    actor: Actor,
    flagKey: string,
    context: EvaluationContext,
    scope: EvaluationScope,
  ): Promise<EvaluationDetail> {
    return this.evaluateIn(await this.target(actor, scope), flagKey, context);
  }

  /**
   * The playground's evaluation (viewer role): the result with the rule or target that decided it.
   * Not an evaluation an application was served, so it is not counted anywhere (decision 1054).
   */
  async explain(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    context: EvaluationContext,
    environment: string,
  ): Promise<EvaluationDetail> {
    const target = await this.#explainTarget(actor, projectIdOrKey, environment);
    return evaluateOne(target, flagKey, context, this.#clock());
  }

  /**
   * The user view (decision 1810): every live flag for one context, each with what decided it and
   * the rule that did as stored, so a person reads "rule 2, segment beta" without opening the flag.
   * Not counted, like `explain`.
   */
  async explainAll(
    actor: Actor,
    projectIdOrKey: string,
    context: EvaluationContext,
    environment: string,
  ): Promise<{ readonly target: EvaluationTarget; readonly flags: readonly ExplainedFlag[] }> {
    const target = await this.#explainTarget(actor, projectIdOrKey, environment);
    const stored = new Map(
      (await this.#snapshots.definitions(target.projectId)).flags.map((f) => [f.key, f]),
    );
    const details = target.compiled.evaluateAll(context, Math.floor(this.#clock() / 1000));
    return { target, flags: details.map((detail) => explained(detail, stored.get(detail.key), environment)) };
  }

  /** Where the playground and the user view evaluate: the viewer role, in the project named. */
  async #explainTarget(actor: Actor, projectIdOrKey: string, environment: string): Promise<EvaluationTarget> {
    const projectId =
      actor.grant?.projectId ??
      (await accessProject(this.#store, actor, projectIdOrKey, 'viewer', environment)).id;
    return this.target({ ...actor, grant: { projectId } }, { environment });
  }

  async evaluateAll(
    actor: Actor,
    context: EvaluationContext,
    scope: EvaluationScope,
    flagKeys?: readonly string[],
  ): Promise<EvaluationDetail[]> {
    return this.evaluateAllIn(await this.target(actor, scope), context, flagKeys);
  }
}

/** A flag's result for the user view, with its name and the rule that decided (its 1-based number). */
export interface ExplainedFlag {
  readonly detail: EvaluationDetail;
  readonly name: string;
  readonly rule?: { readonly number: number; readonly rule: TargetingRule };
}

function explained(detail: EvaluationDetail, flag: Flag | undefined, environment: string): ExplainedFlag {
  const name = flag?.name ?? detail.key;
  const rules = flag?.environments[environment]?.rules ?? [];
  const index = detail.ruleId === undefined ? -1 : rules.findIndex((r) => r.id === detail.ruleId);
  const rule = rules[index];
  return rule === undefined ? { detail, name } : { detail, name, rule: { number: index + 1, rule } };
}

/** One flag's result at `nowMs`, with nothing counted. */
function evaluateOne(
  target: EvaluationTarget,
  flagKey: string,
  context: EvaluationContext,
  nowMs: number,
): EvaluationDetail {
  const result = target.compiled.evaluate(flagKey, context, Math.floor(nowMs / 1000));
  if (result === undefined) throw flagNotFound(`No flag "${flagKey}" in this project.`);
  return result;
}
