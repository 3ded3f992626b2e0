import type { Person } from './change-request.ts';
import type { FieldError } from './errors.ts';
import type { RolloutWeight } from './flag.ts';
import type { ProjectResource } from './keyed-resource.ts';

// Release plans (SPEC §13 "Release plans", "Guards"; docs/releases.md): a flag released in an
// environment in milestones, each a rollout held for a time or until someone proceeds, watched
// by guards that pause or roll it back. Pure: the types and the rules of their shape.

/** A milestone as a template keeps it: the share released (percent), or weights by variant. */
export interface MilestoneSpec {
  readonly name: string;
  readonly rollout: number | Readonly<Record<string, number>>;
  /** Seconds the milestone holds before the plan moves on; null: until someone proceeds. */
  readonly holdSeconds: number | null;
}

/** A milestone of a plan: the rollout resolved to the flag's variants. */
export interface Milestone {
  readonly name: string;
  /** The flag's default rollout in the environment while the milestone runs. */
  readonly weights: readonly RolloutWeight[];
  readonly holdSeconds: number | null;
}

/** A Flagstaff metric compared between treatment and control with the always-valid test (decision 1910). */
export interface MetricGuard {
  readonly kind: 'metric';
  readonly name: string;
  readonly metric: string;
  /** False-rollback rate over every look; default 0.05. */
  readonly alpha: number;
  /** Units each variant needs before the guard may read at all; fewer reads as "cannot be read". */
  readonly minUnits: number;
}

/** A PromQL query per variant (`$variant` replaced) against a threshold; higher values are worse. */
export interface PrometheusGuard {
  readonly kind: 'prometheus';
  readonly name: string;
  readonly query: string;
  readonly threshold: PrometheusThreshold;
}

/** Breach when the treatment's value is above `above`, or above `ratio` × the control's. */
export type PrometheusThreshold = { readonly above: number } | { readonly relativeToControl: number };

export type Guard = MetricGuard | PrometheusGuard;

/** What a breach does: hold the plan where it is for people to decide, or serve control again. */
export type BreachAction = 'pause' | 'rollback';

/** The reusable part of a plan: a project's template holds it (milestones as MilestoneSpec), a plan copies it. */
export interface ReleaseSteps<M = Milestone> {
  readonly milestones: readonly M[];
  readonly guards: readonly Guard[];
  readonly onBreach: BreachAction;
  /** How often guards are read while a milestone runs. */
  readonly guardIntervalSeconds: number;
}

/** A project's reusable milestones and guards, keyed in it like any project resource. */
export interface ReleaseTemplate extends ReleaseSteps<MilestoneSpec>, ProjectResource {}

export const RELEASE_STATUSES = [
  'draft',
  'awaiting_approval',
  'running',
  'paused',
  'rolled_back',
  'completed',
] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

/** One guard's last look. */
export interface GuardReading {
  readonly guard: string;
  readonly at: string;
  readonly status: 'clear' | 'breached' | 'unreadable';
  /** The figures it compared: the treatment's and control's values, the threshold or the bound. */
  readonly figures: Readonly<Record<string, number>>;
  /** In words: what it compared, or why it cannot be read. */
  readonly message: string;
}

/** One thing that happened to the plan, as its timeline shows it. */
export interface PlanEvent {
  readonly at: string;
  readonly action: string;
  readonly by: Person;
  /** The milestone it concerns (index), if any. */
  readonly milestone?: number;
  readonly reason?: string;
}

export interface ReleasePlan extends ReleaseSteps {
  readonly id: string;
  readonly projectId: string;
  readonly flagId: string;
  readonly flagKey: string;
  readonly environment: string;
  /** The variant served before the plan (what a rollback serves again). */
  readonly control: string;
  /** The new variant the plan releases. */
  readonly treatment: string;
  /** The template it was made from, if any. */
  readonly template: string | null;
  readonly status: ReleaseStatus;
  /** The milestone running (index); null before the start. */
  readonly current: number | null;
  readonly milestoneStartedAt: string | null;
  /** The scheduled change (ChangeScheduler) that makes the next step, and when it is due. */
  readonly nextStep: { readonly id: string; readonly at: string } | null;
  /** The change request its start waits on. */
  readonly changeRequest: string | null;
  readonly readings: readonly GuardReading[];
  /** The looks before, oldest first, at most GUARD_HISTORY of them: what the flag page charts. */
  readonly history: readonly GuardReading[];
  /** When the guards were last read. */
  readonly lookedAt: string | null;
  /** Why the plan does not move on although its milestone's time is up (a guard that cannot be read). */
  readonly holding: string | null;
  /** Why it stopped (paused, rolled back): who or which guard, with the figures. */
  readonly stopReason: string | null;
  readonly events: readonly PlanEvent[];
  readonly createdBy: Person;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a plan is before it runs: a draft at no milestone, with no step scheduled, reading or stop yet. */
export const NOT_STARTED = {
  status: 'draft',
  current: null,
  milestoneStartedAt: null,
  nextStep: null,
  changeRequest: null,
  readings: [],
  history: [],
  lookedAt: null,
  holding: null,
  stopReason: null,
} as const satisfies Partial<ReleasePlan>;

/** How many past readings a plan keeps for its guards' charts. */
export const GUARD_HISTORY = 120;

/** Who the audit log names for a plan's own steps (SPEC §13: "audited writes by the plan"). */
export const planActor = (plan: Pick<ReleasePlan, 'id'>): Person => ({
  type: 'release_plan',
  id: plan.id,
  name: 'release plan',
});

/** The key a plan's units are exposed under (ComparisonRef.key). */
export const releaseComparisonKey = (planId: string): string => `release:${planId}`;

/** The share (0–100) of everyone served something other than `control` at a milestone. */
export function treatmentShare(weights: readonly RolloutWeight[], control: string): number {
  const total = weights.reduce((sum, w) => sum + w.weight, 0);
  if (total === 0) return 0;
  const others = weights.filter((w) => w.variant !== control).reduce((sum, w) => sum + w.weight, 0);
  return (others / total) * 100;
}

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `"90s"`, `"10m"`, `"2h"`, `"1d"` in seconds; undefined when it is none of those. */
export function parseDuration(text: string): number | undefined {
  const match = /^(-?\d+(?:\.\d+)?)\s*([smhd])$/.exec(text.trim());
  if (match === null) return undefined;
  return Number(match[1]) * (UNITS[match[2] as string] as number);
}

/** A duration as people write it back: the largest unit that divides it. */
export function formatDuration(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    const size = UNITS[unit] as number;
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/**
 * What is wrong with a plan's shape, field by field (empty when nothing): every milestone's
 * variants must be the flag's, the released share must rise from one milestone to the next,
 * holds and the guard interval must be longer than 0, guard names unique, and a PromQL template
 * must name `$variant`. `variants` undefined (a template's): any variant name goes.
 */
export function shapeProblems(
  steps: ReleaseSteps,
  control: string,
  variants: readonly string[] | undefined,
): FieldError[] {
  const problems: FieldError[] = [];
  const known = variants === undefined ? undefined : new Set(variants);
  let previous = -1;
  steps.milestones.forEach((milestone, index) => {
    const path = `/milestones/${index}`;
    for (const w of milestone.weights) {
      if (known !== undefined && !known.has(w.variant))
        problems.push({
          path: `${path}/rollout`,
          message: `names "${w.variant}", which is not a variant of the flag`,
        });
    }
    const share = treatmentShare(milestone.weights, control);
    if (share <= previous) {
      problems.push({
        path: `${path}/rollout`,
        message: `must release more than the milestone before it (${previous}%), not ${share}%`,
      });
    }
    previous = share;
    if (milestone.holdSeconds !== null && !(milestone.holdSeconds > 0)) {
      problems.push({ path: `${path}/hold`, message: 'must be longer than 0' });
    }
  });
  if (!(steps.guardIntervalSeconds > 0)) {
    problems.push({ path: '/guardInterval', message: 'must be longer than 0' });
  }
  const names = new Set<string>();
  steps.guards.forEach((guard, index) => {
    if (names.has(guard.name))
      problems.push({ path: `/guards/${index}/name`, message: 'is another guard’s name' });
    names.add(guard.name);
    if (guard.kind === 'prometheus' && !guard.query.includes('$variant')) {
      problems.push({
        path: `/guards/${index}/query`,
        message: 'must contain $variant, replaced by each variant',
      });
    }
  });
  return problems;
}

/** A template's milestone for a flag: a percentage goes to `treatment`, the rest to `control`. */
export function resolveMilestone(spec: MilestoneSpec, control: string, treatment: string): Milestone {
  const weights =
    typeof spec.rollout === 'number'
      ? [
          { variant: control, weight: 100 - spec.rollout },
          { variant: treatment, weight: spec.rollout },
        ]
      : Object.entries(spec.rollout).map(([variant, weight]) => ({ variant, weight }));
  return { name: spec.name, weights, holdSeconds: spec.holdSeconds };
}
