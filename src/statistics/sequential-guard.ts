import type { DifferenceType, EffectProblem } from './effect-moments.ts';
import { sequentialOneSidedTTest } from './sequential-t-test.ts';
import type { TestStatistic } from './statistic.ts';

export interface GuardOptions {
  /** Which way is better for the metric: a regression is a move the other way. */
  readonly goal: 'increase' | 'decrease';
  /** The false-alarm rate over every look, however many: 0.05. */
  readonly alpha?: number;
  readonly differenceType?: DifferenceType;
  /** See SequentialOptions.tuningParameter: the total units at which the bound is tightest. */
  readonly tuningParameter?: number;
}

/** What a guard concludes from one look. */
export type GuardVerdict =
  | {
      /** `regressed`: treatment is worse than control beyond what the always-valid bound allows. */
      readonly status: 'regressed' | 'clear';
      /** The estimated effect of treatment over control (relative by default). */
      readonly effect: number;
      /** The always-valid bound on the effect on the good side; a regression has it past 0. */
      readonly bound: number;
    }
  | { readonly status: 'unreadable'; readonly reason: EffectProblem };

/**
 * Is treatment worse than control on this metric? The one-sided confidence sequence of
 * sequentialOneSidedTTest (decision 1910): the guard may look after every new unit and the chance
 * it ever calls an A/A comparison a regression stays ≤ α. A look without the figures to decide
 * (no variance, a control mean of 0) is `unreadable`: the caller holds, never proceeds blind.
 */
export function sequentialGuard(
  control: TestStatistic,
  treatment: TestStatistic,
  options: GuardOptions,
): GuardVerdict {
  const side = options.goal === 'increase' ? 'lesser' : 'greater';
  const result = sequentialOneSidedTTest(control, treatment, side, options);
  if (result.errorMessage !== null) return { status: 'unreadable', reason: result.errorMessage };
  const bound = (side === 'lesser' ? result.ci[1] : result.ci[0]) as number;
  const regressed = side === 'lesser' ? bound < 0 : bound > 0;
  return { status: regressed ? 'regressed' : 'clear', effect: result.expected, bound };
}
