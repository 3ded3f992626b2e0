import type { ChangeRequest } from '../../domain/change-request.ts';
import { personOf } from '../../domain/change-request.ts';
import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { conflict, DomainError, type FieldError, notFound, validationFailed } from '../../domain/errors.ts';
import type { Flag } from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import type { Project } from '../../domain/project.ts';
import {
  GUARD_HISTORY,
  type GuardReading,
  type Milestone,
  NOT_STARTED,
  type PlanEvent,
  planActor,
  type ReleasePlan,
  type ReleaseStatus,
  resolveMilestone,
  shapeProblems,
} from '../../domain/release-plan.ts';
import {
  type ScheduledChange,
  ScheduledChangeHeld,
  ScheduledChangeSettled,
} from '../../domain/scheduled-change.ts';
import type { FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { CreateReleasePlanInput } from '../../domain/schemas/release-schemas.ts';
import type { MetricRole, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { accessProject } from '../core/project-access.ts';
import { type VersionedKind, writeVersioned } from '../core/versioned-write.ts';
import type { Gated } from '../core/write-gate.ts';
import type { FlagRoles } from '../flags/flag-kind.ts';
import type { FlagWrites } from '../flags/flag-writes.ts';
import type { ReleaseStarts } from '../governance/change-request-service.ts';
import type { PlanSteps } from '../governance/scheduled-change-service.ts';
import { queryFor } from './guard-readings.ts';
import type { PrometheusQueries } from './prometheus-client.ts';
import { PrometheusUnreadable } from './prometheus-client.ts';
import { stepsOf } from './release-input.ts';

/** What plans read and write: flags (their steps are flag writes), metrics (guards name them). */
export type ReleaseRoles = FlagRoles & MetricRole;

/** Plans as the one versioned write stores and audits them: in the flag's history, by the flag's key. */
const PLANS: VersionedKind<ReleasePlan, FlagRoles> = {
  type: 'release_plan',
  key: (plan) => plan.flagKey,
  logOf: (plan) => plan.projectId,
  subjectOf: (plan) => plan.flagId,
  insert: (tx, plan) => tx.releases.insertPlan(plan),
  update: (tx, plan, expectedVersion) => tx.releases.updatePlan(plan, expectedVersion),
  remove: (tx, plan) => tx.releases.deletePlan(plan.id),
};

/** The flag patch that makes a milestone: the environment's default rollout. */
const milestonePatch = (milestone: Milestone): FlagPatch => ({
  defaultRollout: { weights: [...milestone.weights] },
});

/** Where a plan is, and what the request names it by. */
interface Located {
  readonly project: Project;
  readonly flag: Flag;
  readonly environment: string;
}

/** What moving a plan changes, and how its audit event and timeline say it. */
interface Move {
  readonly action: string;
  readonly next: Partial<ReleasePlan>;
  readonly reason?: string;
  readonly details?: Readonly<Record<string, unknown>>;
  /** The step it schedules: the scheduled change to milestone `index`. */
  readonly schedule?: Scheduled | undefined;
}

interface Scheduled {
  readonly index: number;
  readonly step: { readonly id: string; readonly at: string };
}

/**
 * Release plans (SPEC §13, docs/releases.md): made from a template or inline milestones; started
 * through the gate once (a change request of kind `release.start` where approvals are required);
 * then each step is a scheduled change written by the plan itself, which the ChangeScheduler runs
 * exactly once across nodes. Pause, resume, proceed and roll back are people's, audited; a guard's
 * breach is the plan's, audited naming the guard.
 */
export class ReleasePlanService implements PlanSteps, ReleaseStarts {
  readonly #store: WithTransactions<ReleaseRoles>;
  readonly #writes: FlagWrites;
  readonly #clock: Clock;
  readonly #prometheus: PrometheusQueries | undefined;

  constructor(
    deps: {
      store: WithTransactions<ReleaseRoles>;
      clock?: Clock;
      prometheus?: PrometheusQueries | undefined;
    },
    writes: FlagWrites,
  ) {
    this.#store = deps.store;
    this.#writes = writes;
    this.#clock = deps.clock ?? systemClock;
    this.#prometheus = deps.prometheus;
  }

  async #locate(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    environment: string,
    role: 'viewer' | 'editor',
  ) {
    const project = await accessProject(this.#store, actor, projectIdOrKey, role, environment);
    const flag = await this.#store.findFlagByKey(project.id, flagKey);
    if (flag === undefined) throw notFound(`No flag "${flagKey}" in project "${project.key}".`);
    if (flag.environments[environment] === undefined) {
      throw notFound(`No environment "${environment}" in project "${project.key}".`);
    }
    return { project, flag, environment };
  }

  async #plan(where: Located, forUpdate = false, tx: ReleaseRoles = this.#store): Promise<ReleasePlan> {
    const plan = await tx.releases.findPlan(where.flag.id, where.environment, { forUpdate });
    if (plan === undefined) {
      throw notFound(`The flag "${where.flag.key}" has no release plan in "${where.environment}".`);
    }
    return plan;
  }

  async get(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    environment: string,
  ): Promise<ReleasePlan> {
    return this.#plan(await this.#locate(actor, projectIdOrKey, flagKey, environment, 'viewer'));
  }

  /** Checks and stores a draft plan; bad milestones, guards or variants are refused field by field. */
  async create(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    environment: string,
    input: CreateReleasePlanInput,
  ): Promise<ReleasePlan> {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    const { flag } = where;
    if (flag.archived) {
      throw validationFailed(
        `The flag "${flag.key}" is archived: unarchive it before planning its release.`,
        [{ path: 'params:/flagKey', message: 'names an archived flag' }],
      );
    }
    const plan = await this.#draft(actor, where, input);
    return this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, PLANS, {
        create: async () => ({
          next: plan,
          action: 'release.created',
          environment,
          taken: `The flag "${flag.key}" has a release plan in "${environment}" already: delete it first.`,
        }),
      }),
    );
  }

  async #draft(actor: Actor, where: Located, input: CreateReleasePlanInput): Promise<ReleasePlan> {
    const { project, flag, environment } = where;
    const problems: FieldError[] = [];
    const template =
      input.template === undefined
        ? undefined
        : await this.#store.releases.templates.findByKey(project.id, input.template);
    if (input.template !== undefined && template === undefined) {
      problems.push({ path: '/template', message: `names no release template of project "${project.key}"` });
    }
    if (input.template === undefined && input.milestones === undefined) {
      problems.push({ path: '/milestones', message: 'is required without a template' });
    }
    // What the request gives replaces the template's, field by field.
    const inline = stepsOf({ ...input, milestones: input.milestones ?? [] }, problems);
    const steps = {
      milestones: input.milestones === undefined ? (template?.milestones ?? []) : inline.milestones,
      guards: input.guards === undefined ? (template?.guards ?? []) : inline.guards,
      onBreach: input.onBreach ?? template?.onBreach ?? inline.onBreach,
      guardIntervalSeconds:
        input.guardInterval === undefined
          ? (template?.guardIntervalSeconds ?? inline.guardIntervalSeconds)
          : inline.guardIntervalSeconds,
    };
    const variants = flag.variants.map((v) => v.key);
    const config = flag.environments[environment];
    const control = input.control ?? config?.defaultVariant ?? config?.offVariant ?? (variants[0] as string);
    const treatment = input.treatment ?? variants.find((v) => v !== control);
    if (!variants.includes(control))
      problems.push({ path: '/control', message: `is not a variant of "${flag.key}"` });
    if (treatment === undefined || !variants.includes(treatment)) {
      problems.push({ path: '/treatment', message: `must name a variant of "${flag.key}"` });
    } else if (treatment === control) {
      problems.push({ path: '/treatment', message: 'must differ from the control' });
    }
    const milestones = steps.milestones.map((m) => resolveMilestone(m, control, treatment ?? control));
    const resolved = { ...steps, milestones };
    problems.push(...shapeProblems(resolved, control, variants));
    problems.push(...(await this.#guardProblems(project, resolved.guards, control)));
    if (problems.length > 0) throw validationFailed('The release plan is not valid.', problems);
    const at = isoTime(this.#clock);
    return {
      id: newId('rpl'),
      projectId: project.id,
      flagId: flag.id,
      flagKey: flag.key,
      environment,
      control,
      treatment: treatment as string,
      template: template?.key ?? null,
      ...resolved,
      ...NOT_STARTED,
      events: [{ at, action: 'created', by: personOf(actor.principal) }],
      createdBy: personOf(actor.principal),
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
  }

  /** A guard on a metric the project lacks, or on a Prometheus that does not answer, is refused now. */
  async #guardProblems(
    project: Project,
    guards: ReleasePlan['guards'],
    control: string,
  ): Promise<FieldError[]> {
    const problems: FieldError[] = [];
    for (const [index, guard] of guards.entries()) {
      if (guard.kind === 'metric') {
        if ((await this.#store.metrics.findByKey(project.id, guard.metric)) === undefined) {
          problems.push({
            path: `/guards/${index}/metric`,
            message: `names no metric of project "${project.key}"`,
          });
        }
        continue;
      }
      if (this.#prometheus === undefined) {
        problems.push({
          path: `/guards/${index}`,
          message: 'needs FLAGSTAFF_PROMETHEUS_URL, which this server does not set',
        });
        continue;
      }
      if (!guard.query.includes('$variant')) continue;
      try {
        await this.#prometheus.value(queryFor(guard, control));
      } catch (error) {
        if (!(error instanceof PrometheusUnreadable)) throw error;
        // No data yet is fine for a new variant; an unreachable server or a bad query is not.
        if (error.message.startsWith('no data')) continue;
        problems.push({ path: `/guards/${index}/query`, message: error.message });
      }
    }
    return problems;
  }

  /** Deletes a plan that is neither running nor waiting for its start's approval. */
  async delete(actor: Actor, projectIdOrKey: string, flagKey: string, environment: string): Promise<void> {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    await this.#store.transaction(async (tx) => {
      const plan = await this.#plan(where, true, tx);
      if (plan.status === 'running' || plan.status === 'awaiting_approval') {
        throw conflict(`The release plan is ${plan.status.replace('_', ' ')}: pause or roll it back first.`);
      }
      await writeVersioned(tx, actor, this.#clock, PLANS, {
        load: async () => plan,
        change: async () => ({ next: null, action: 'release.deleted', environment }),
      });
    });
  }

  /**
   * Starts a draft plan: its first milestone is written now, through the gate. Where the
   * environment requires approvals, a non-admin's start is a change request of kind
   * `release.start` (202) and the plan waits for it; once approved, no step asks again.
   */
  async start(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    environment: string,
  ): Promise<Gated<ReleasePlan>> {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    const plan = await this.#plan(where);
    // Asking again while a request waits makes another (the plan names the latest): the first approved starts it.
    requireStatus(plan, ['draft', 'awaiting_approval'], 'started');
    let started: ReleasePlan | undefined;
    const outcome = await this.#writes.patch(actor, plan.flagId, milestonePatch(first(plan)), environment, {
      approval: 'gate',
      request: {
        kind: 'release.start',
        patch: { plan: plan.id, comment: `Start the release plan of "${plan.flagKey}"` },
      },
      claim: async (_, tx) => {
        started = await this.#begin(tx, actor, plan.id, null);
        return { releasePlan: plan.id, milestone: 0 };
      },
      requested: async (tx, request) => {
        await this.#move(tx, actor, plan.id, ['draft', 'awaiting_approval'], {
          action: 'release.awaiting_approval',
          next: { status: 'awaiting_approval', changeRequest: request.id },
        });
      },
    });
    return 'request' in outcome ? outcome : { applied: started as ReleasePlan };
  }

  /** An approved `release.start` request: the first milestone written, the plan running (ChangeRequestService calls this). */
  async startApproved(
    actor: Actor,
    request: ChangeRequest,
    claim: (tx: FlagRoles) => Promise<Readonly<Record<string, unknown>>>,
  ): Promise<void> {
    const planId = request.patch.plan as string;
    const plan = await this.#store.releases.findPlanById(planId);
    if (plan === undefined) throw notFound('The release plan this request starts was deleted.');
    await this.#writes.patch(actor, plan.flagId, milestonePatch(first(plan)), plan.environment, {
      approval: 'approved',
      authorised: true,
      claim: async (_, tx) => {
        const details = await claim(tx);
        await this.#begin(tx, actor, plan.id, request.id);
        return { ...details, releasePlan: plan.id, milestone: 0 };
      },
    });
  }

  /** In the first milestone's write: the plan runs, its next step scheduled. */
  async #begin(tx: FlagRoles, actor: Actor, planId: string, approvedBy: string | null): Promise<ReleasePlan> {
    const from: ReleaseStatus[] = ['draft', 'awaiting_approval'];
    return this.#move(tx, actor, planId, from, (plan) => ({
      action: 'release.started',
      ...this.#atMilestone(plan, 0, { changeRequest: approvedBy }),
      details: approvedBy === null ? undefined : { changeRequest: approvedBy },
    }));
  }

  /**
   * The plan at milestone `index`, from now: its hold restarts, the guards must read again, and
   * the step to the next milestone is scheduled (a scheduled change of the plan) when it has a
   * timed hold. The last milestone completes the plan.
   */
  #atMilestone(
    plan: ReleasePlan,
    index: number,
    more: Partial<ReleasePlan> = {},
  ): Pick<Move, 'next' | 'schedule'> {
    const now = this.#clock();
    const last = index === plan.milestones.length - 1;
    const hold = plan.milestones[index]?.holdSeconds ?? null;
    const step =
      last || hold === null ? null : { id: newId('sch'), at: new Date(now + hold * 1000).toISOString() };
    return {
      next: {
        status: last ? 'completed' : 'running',
        current: index,
        milestoneStartedAt: new Date(now).toISOString(),
        nextStep: step,
        holding: null,
        stopReason: null,
        ...more,
      },
      schedule: step === null ? undefined : { index: index + 1, step },
    };
  }

  /** Inserts the scheduled change that is the plan's step to milestone `index`. */
  async #insertStep(tx: FlagRoles, plan: ReleasePlan, { index, step }: Scheduled): Promise<void> {
    const change: ScheduledChange = {
      id: step.id,
      projectId: plan.projectId,
      flagId: plan.flagId,
      environment: plan.environment,
      patch: milestonePatch(plan.milestones[index] as Milestone),
      comment: `Release plan: ${plan.milestones[index]?.name ?? `milestone ${index + 1}`}`,
      at: step.at,
      status: 'pending',
      author: {
        ...planActor(plan),
        role: 'editor',
        projectId: plan.projectId,
        environments: [plan.environment],
      },
      createdAt: isoTime(this.#clock),
      settledAt: null,
      failure: null,
      releaseStep: { plan: plan.id, milestone: index },
    };
    await tx.pendingChanges.insert('schedule', change);
  }

  /**
   * One audited move of a plan, in the caller's transaction: read and locked, in one of `from`,
   * changed as `move` says, its timeline extended, the step it schedules inserted, the one it
   * leaves behind cancelled.
   */
  async #move(
    tx: FlagRoles,
    actor: Actor,
    planId: string,
    from: readonly ReleaseStatus[],
    move: Move | ((plan: ReleasePlan) => Move),
  ): Promise<ReleasePlan> {
    const stored = await tx.releases.findPlanById(planId, { forUpdate: true });
    if (stored === undefined) throw notFound('The release plan was deleted.');
    requireStatus(stored, from, 'changed');
    const { action, next, reason, details, schedule } = typeof move === 'function' ? move(stored) : move;
    const at = isoTime(this.#clock);
    const event: PlanEvent = {
      at,
      action: action.replace(/^release\./, ''),
      by: personOf(actor.principal),
      ...(next.current === undefined || next.current === null ? {} : { milestone: next.current }),
      ...(reason === undefined ? {} : { reason }),
    };
    const written = await writeVersioned(tx, actor, this.#clock, PLANS, {
      load: async () => stored,
      change: async () => ({
        next: {
          ...stored,
          ...next,
          events: [...stored.events, event],
          version: stored.version + 1,
          updatedAt: at,
        },
        action,
        environment: stored.environment,
        details: { ...details, ...(reason === undefined ? {} : { reason }) },
      }),
    });
    // The step it leaves behind will not run: a new one (or none) replaces it.
    if (stored.nextStep !== null && stored.nextStep.id !== written.nextStep?.id) {
      await tx.pendingChanges.settle(stored.nextStep.id, 'cancelled', at);
    }
    if (schedule !== undefined) await this.#insertStep(tx, written, schedule);
    if (written.status === 'completed' && stored.status !== 'completed') {
      await this.#audit(tx, written, 'release.completed', { milestone: written.current });
    }
    return written;
  }

  /** An audit event of the plan beside the write that caused it (completion after the last step). */
  async #audit(tx: FlagRoles, plan: ReleasePlan, action: string, details: Readonly<Record<string, unknown>>) {
    await recordAudit(tx, this.actorOf(plan), plan.projectId, {
      at: isoTime(this.#clock),
      action,
      resource: { type: 'release_plan', id: plan.id, key: plan.flagKey },
      environment: plan.environment,
      before: null,
      after: plan,
      details,
    });
  }

  // --- Steps, as the ChangeScheduler runs them (PlanSteps) ---

  /** A plan acts as itself, with an editor's reach over its one environment. */
  actorOf(change: Pick<ScheduledChange, 'releaseStep' | 'projectId' | 'environment'> | ReleasePlan): Actor {
    const id =
      'releaseStep' in change && change.releaseStep !== undefined
        ? change.releaseStep.plan
        : (change as ReleasePlan).id;
    return {
      principal: {
        ...planActor({ id }),
        role: 'editor',
        projectId: change.projectId,
        environments: [change.environment],
      },
      requestId: `release-plan:${id}`,
    };
  }

  async advance(
    tx: FlagRoles,
    change: ScheduledChange,
    at: Date,
  ): Promise<Readonly<Record<string, unknown>>> {
    const step = change.releaseStep as NonNullable<ScheduledChange['releaseStep']>;
    const plan = await tx.releases.findPlanById(step.plan, { forUpdate: true });
    if (plan === undefined || plan.status !== 'running' || plan.nextStep?.id !== change.id) {
      throw new ScheduledChangeSettled(change.id);
    }
    const held = holdReason(plan);
    if (held !== undefined) {
      throw new ScheduledChangeHeld(
        held,
        new Date(at.getTime() + plan.guardIntervalSeconds * 1000).toISOString(),
      );
    }
    await this.#move(tx, this.actorOf(plan), plan.id, ['running'], (stored) => ({
      action: 'release.progressed',
      ...this.#atMilestone(stored, step.milestone),
      details: {
        milestone: step.milestone,
        name: stored.milestones[step.milestone]?.name,
        scheduledChange: change.id,
      },
    }));
    return { releasePlan: plan.id, milestone: step.milestone };
  }

  async hold(change: ScheduledChange, held: ScheduledChangeHeld): Promise<void> {
    const planId = change.releaseStep?.plan as string;
    await this.#store.transaction(async (tx) => {
      const plan = await tx.releases.findPlanById(planId, { forUpdate: true });
      if (plan === undefined || plan.nextStep?.id !== change.id) return;
      if (!(await tx.pendingChanges.postpone(change.id, held.retryAt))) return;
      const next = {
        ...plan,
        holding: held.message,
        nextStep: { id: change.id, at: held.retryAt },
        version: plan.version + 1,
      };
      await tx.releases.updatePlan(next, plan.version);
    });
  }

  // --- People's moves ---

  /** Holds the plan where it is: its next step will not run until someone resumes or proceeds. */
  async pause(actor: Actor, projectIdOrKey: string, flagKey: string, environment: string, reason?: string) {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    const plan = await this.#plan(where);
    return this.#store.transaction((tx) =>
      this.#move(tx, actor, plan.id, ['running'], {
        action: 'release.paused',
        next: { status: 'paused', nextStep: null, stopReason: reason ?? `Paused by ${actor.principal.name}` },
        reason,
      }),
    );
  }

  /** A paused plan runs again: its current milestone's hold starts over. */
  async resume(actor: Actor, projectIdOrKey: string, flagKey: string, environment: string) {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    const plan = await this.#plan(where);
    return this.#store.transaction((tx) =>
      this.#move(tx, actor, plan.id, ['paused'], (stored) => ({
        action: 'release.resumed',
        ...this.#atMilestone(stored, stored.current ?? 0),
      })),
    );
  }

  /** The next milestone now, written as the person who proceeds (the plan was approved when it started). */
  async proceed(actor: Actor, projectIdOrKey: string, flagKey: string, environment: string) {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    const plan = await this.#plan(where);
    requireStatus(plan, ['running', 'paused'], 'moved on');
    const index = (plan.current ?? -1) + 1;
    const milestone = plan.milestones[index];
    if (milestone === undefined) throw conflict('The release plan is at its last milestone.');
    let moved: ReleasePlan | undefined;
    await this.#writes.patch(actor, plan.flagId, milestonePatch(milestone), environment, {
      approval: 'approved',
      claim: async (_, tx) => {
        moved = await this.#move(tx, actor, plan.id, ['running', 'paused'], (stored) => {
          if (stored.current !== plan.current)
            throw conflict('The release plan moved meanwhile; read it again.');
          return {
            action: 'release.progressed',
            ...this.#atMilestone(stored, index),
            details: { milestone: index, name: milestone.name },
          };
        });
        return { releasePlan: plan.id, milestone: index };
      },
    });
    return moved as ReleasePlan;
  }

  /** Serves the control again, as the person who rolls back. */
  async rollback(
    actor: Actor,
    projectIdOrKey: string,
    flagKey: string,
    environment: string,
    reason?: string,
  ) {
    const where = await this.#locate(actor, projectIdOrKey, flagKey, environment, 'editor');
    const plan = await this.#plan(where);
    return this.#rollBack(actor, plan, {
      reason: reason ?? `Rolled back by ${actor.principal.name}`,
      details: reason === undefined ? {} : { reason },
      approval: 'approved',
    });
  }

  async #rollBack(
    actor: Actor,
    plan: ReleasePlan,
    how: {
      reason: string;
      details: Readonly<Record<string, unknown>>;
      approval: 'approved';
      expectedVersion?: number;
    },
  ): Promise<ReleasePlan> {
    requireStatus(plan, ['running', 'paused'], 'rolled back');
    let rolled: ReleasePlan | undefined;
    const patch: FlagPatch = { defaultRollout: null, defaultVariant: plan.control };
    await this.#writes.patch(actor, plan.flagId, patch, plan.environment, {
      approval: how.approval,
      authorised: actor.principal.type === 'release_plan',
      claim: async (_, tx) => {
        rolled = await this.#move(tx, actor, plan.id, ['running', 'paused'], (stored) => {
          if (how.expectedVersion !== undefined && stored.version !== how.expectedVersion) {
            throw new ScheduledChangeSettled(plan.id);
          }
          return {
            action: 'release.rolled_back',
            next: { status: 'rolled_back', nextStep: null, holding: null, stopReason: how.reason },
            reason: how.reason,
            details: how.details,
          };
        });
        return { releasePlan: plan.id, rolledBack: true, ...how.details };
      },
    });
    return rolled as ReleasePlan;
  }

  // --- Guards, as the guard checker reads them ---

  /**
   * Records one look at a plan's guards, taken against its `version`: clear and unreadable looks
   * update the readings (an unreadable one holds the plan, saying why); a breach pauses or rolls
   * back as the plan says, as one audited write that names the guard, its figures and threshold.
   * A look another node recorded first (the version moved) is dropped: one breach, once.
   */
  async recordLook(
    planId: string,
    version: number,
    readings: readonly GuardReading[],
  ): Promise<ReleasePlan | undefined> {
    const plan = await this.#store.releases.findPlanById(planId);
    if (plan === undefined || plan.version !== version || plan.status !== 'running') return undefined;
    const at = isoTime(this.#clock);
    const breach = readings.find((r) => r.status === 'breached');
    if (breach !== undefined) return this.#breach(plan, readings, breach);
    const unreadable = readings.filter((r) => r.status === 'unreadable');
    const holding =
      unreadable.length === 0
        ? null
        : `Holding: ${unreadable.map((r) => `guard "${r.guard}" cannot be read (${r.message})`).join('; ')}.`;
    const next: ReleasePlan = {
      ...plan,
      ...looked(plan, readings, at),
      holding,
      version: plan.version + 1,
      updatedAt: at,
    };
    return (await this.#store.releases.updatePlan(next, plan.version)) ? next : undefined;
  }

  async #breach(
    plan: ReleasePlan,
    readings: readonly GuardReading[],
    breach: GuardReading,
  ): Promise<ReleasePlan | undefined> {
    const actor = this.actorOf(plan);
    const reason = `Guard "${breach.guard}" breached: ${breach.message}.`;
    const details = { guard: breach.guard, figures: breach.figures, message: breach.message };
    const look = looked(plan, readings, breach.at);
    try {
      if (plan.onBreach === 'rollback') {
        const rolled = await this.#rollBack(actor, plan, {
          reason,
          details,
          approval: 'approved',
          expectedVersion: plan.version,
        });
        return this.#store.transaction(async (tx) => {
          const stored = await tx.releases.findPlanById(plan.id, { forUpdate: true });
          if (stored === undefined) return rolled;
          const next = { ...stored, ...look, version: stored.version + 1 };
          return (await tx.releases.updatePlan(next, stored.version)) ? next : rolled;
        });
      }
      return await this.#store.transaction((tx) =>
        this.#move(tx, actor, plan.id, ['running'], (stored) => {
          if (stored.version !== plan.version) throw new ScheduledChangeSettled(plan.id);
          return {
            action: 'release.paused',
            next: { ...look, status: 'paused', nextStep: null, holding: null, stopReason: reason },
            reason,
            details,
          };
        }),
      );
    } catch (error) {
      // Another node recorded this look (or moved the plan) first: its write is the one.
      const lost =
        error instanceof DomainError && (error.code === 'conflict' || error.code === 'precondition_failed');
      if (error instanceof ScheduledChangeSettled || lost) return undefined;
      throw error;
    }
  }
}

const first = (plan: ReleasePlan): Milestone => plan.milestones[0] as Milestone;

/** A look recorded: the readings now, the ones they replace kept in the history. */
const looked = (plan: ReleasePlan, readings: readonly GuardReading[], at: string) => ({
  readings,
  history: [...plan.history, ...plan.readings].slice(-GUARD_HISTORY),
  lookedAt: at,
});

function requireStatus(plan: ReleasePlan, allowed: readonly ReleaseStatus[], verb: string): void {
  if (!allowed.includes(plan.status)) {
    throw conflict(
      `The release plan is ${plan.status.replace('_', ' ')}; only a ${allowed.join(' or ')} one can be ${verb}.`,
    );
  }
}

/**
 * Why a due step may not run yet: a guard that cannot be read, or that has not been read since
 * the milestone began (it never proceeds blind). Undefined: every guard read clear since.
 */
export function holdReason(plan: ReleasePlan): string | undefined {
  if (plan.guards.length === 0) return undefined;
  const since = plan.milestoneStartedAt ?? '';
  for (const guard of plan.guards) {
    const reading = plan.readings.find((r) => r.guard === guard.name);
    if (reading === undefined || reading.at < since) {
      return `Holding: guard "${guard.name}" has not been read since this milestone began.`;
    }
    if (reading.status !== 'clear')
      return `Holding: guard "${guard.name}" cannot be read (${reading.message}).`;
  }
  return undefined;
}
