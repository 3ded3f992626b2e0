import type { FieldError } from '../../domain/errors.ts';
import {
  type BreachAction,
  type Guard,
  type MilestoneSpec,
  parseDuration,
  type ReleaseSteps,
} from '../../domain/release-plan.ts';
import type { GuardInput, MilestoneInput } from '../../domain/schemas/release-schemas.ts';

/** How often guards are read when the plan does not say. */
export const DEFAULT_GUARD_INTERVAL_SECONDS = 60;
export const DEFAULT_GUARD_ALPHA = 0.05;
/** Units each variant needs before a metric guard reads: below, the asymptotic test is not yet to be trusted (decision 1910). */
export const DEFAULT_GUARD_MIN_UNITS = 100;

/** A duration field read as seconds, or the problem with it. */
function seconds(text: string, path: string, problems: FieldError[]): number {
  const value = parseDuration(text);
  if (value === undefined) {
    problems.push({ path, message: 'must be a duration such as 30s, 10m, 2h or 1d' });
    return Number.NaN;
  }
  if (value <= 0) problems.push({ path, message: 'must be longer than 0' });
  return value;
}

function milestoneOf(input: MilestoneInput, index: number, problems: FieldError[]): MilestoneSpec {
  const holdSeconds =
    input.hold === 'until-proceeded' ? null : seconds(input.hold, `/milestones/${index}/hold`, problems);
  return { name: input.name, rollout: input.rollout, holdSeconds };
}

const guardOf = (input: GuardInput): Guard =>
  input.kind === 'metric'
    ? {
        kind: 'metric',
        name: input.name,
        metric: input.metric,
        alpha: input.alpha ?? DEFAULT_GUARD_ALPHA,
        minUnits: input.minUnits ?? DEFAULT_GUARD_MIN_UNITS,
      }
    : { kind: 'prometheus', name: input.name, query: input.query, threshold: input.threshold };

/** The steps a request describes, durations read; problems name each field that is not a duration > 0. */
export function stepsOf(
  input: {
    readonly milestones: readonly MilestoneInput[];
    readonly guards?: readonly GuardInput[] | undefined;
    readonly onBreach?: BreachAction | undefined;
    readonly guardInterval?: string | undefined;
  },
  problems: FieldError[],
): ReleaseSteps<MilestoneSpec> {
  return {
    milestones: input.milestones.map((m, index) => milestoneOf(m, index, problems)),
    guards: (input.guards ?? []).map(guardOf),
    onBreach: input.onBreach ?? 'rollback',
    guardIntervalSeconds:
      input.guardInterval === undefined
        ? DEFAULT_GUARD_INTERVAL_SECONDS
        : seconds(input.guardInterval, '/guardInterval', problems),
  };
}
