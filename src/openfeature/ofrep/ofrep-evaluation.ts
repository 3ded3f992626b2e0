import type { EvaluationContext, EvaluationDetail } from '../../domain/evaluation-result.ts';
import type { CompiledEnvironment } from '../../evaluation/compile-environment.ts';
import {
  evaluationFailed,
  type OfrepFailure,
  type OfrepSuccess,
  targetingKeyMissing,
  toOfrepSuccess,
} from './ofrep-wire.ts';

/** Any text will do: it only asks whether a targetingKey would have let the user be bucketed. */
const PROBE_TARGETING_KEY = 'ofrep-probe';

/** Evaluates a flag again, uncounted, for another context (see `toOfrepResult`). */
export type Reevaluate = (flagKey: string, context: EvaluationContext) => EvaluationDetail | undefined;

/** A compiled environment's evaluation as a `Reevaluate`. */
export const reevaluateIn =
  (compiled: CompiledEnvironment, nowSeconds: number): Reevaluate =>
  (flagKey, context) =>
    compiled.evaluate(flagKey, context, nowSeconds);

/**
 * An evaluation as OFREP answers it. TARGETING_KEY_MISSING when the default was served only
 * because the context has no targetingKey to bucket by: with one, a rollout would have split.
 * (flagd-style JsonLogic never answers `split`, so flags imported from flagd keep flagd's
 * answer, the default.)
 */
export function toOfrepResult(
  detail: EvaluationDetail,
  context: EvaluationContext,
  reevaluate: Reevaluate,
): OfrepSuccess | OfrepFailure {
  if (detail.reason === 'error') return evaluationFailed(detail);
  if (mayFail(detail, context)) {
    const probe = reevaluate(detail.key, { ...context, targetingKey: PROBE_TARGETING_KEY });
    if (probe?.reason === 'split') return targetingKeyMissing(detail);
  }
  return toOfrepSuccess(detail);
}

/**
 * Whether `toOfrepResult` could answer a failure for this evaluation: an error, or a default
 * served to a context without a targetingKey. Any other evaluation is `toOfrepSuccess(detail)`.
 */
export const mayFail = (detail: EvaluationDetail, context: EvaluationContext): boolean =>
  detail.reason === 'error' || (detail.reason === 'default' && context.targetingKey === undefined);

export const isFailure = (result: OfrepSuccess | OfrepFailure): result is OfrepFailure =>
  'errorCode' in result;
