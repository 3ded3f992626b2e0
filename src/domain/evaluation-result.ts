import type { FlagMetadata, FlagType, JsonValue } from './flag.ts';

/**
 * Why a value was served (docs/product.md §3, §4.1, §10). `error`: the flag cannot be evaluated (imported
 * flagd targeting that does not compile, docs/product.md §6); the result then carries an `errorCode`.
 */
export type Reason =
  | 'targeting'
  | 'split'
  | 'default'
  | 'disabled'
  | 'static'
  | 'prerequisite_failed'
  | 'error';
export const REASONS: readonly Reason[] = [
  'targeting',
  'split',
  'default',
  'disabled',
  'static',
  'prerequisite_failed',
  'error',
];

/** OpenFeature's error codes that an evaluation itself can end with. */
export type EvaluationErrorCode = 'PARSE_ERROR';

export interface EvaluationResult {
  readonly key: string;
  readonly type: FlagType;
  readonly value: JsonValue;
  readonly reason: Reason;
  readonly variant: string | null;
  /** Set exactly when `reason` is `error`. */
  readonly errorCode?: EvaluationErrorCode;
}

/** An evaluation result with what the playground shows about how it was reached. */
export interface EvaluationDetail extends EvaluationResult {
  /** The targeting rule that decided, when one did. */
  readonly ruleId?: string;
  /** True when the user was listed in the flag's individual targets. */
  readonly targetMatched?: boolean;
  /** The prerequisite flag that was not served a required variant, when one was not. */
  readonly failedPrerequisite?: string;
  /** Why the flag cannot be evaluated, when `reason` is `error`. */
  readonly errorMessage?: string;
  readonly flagMetadata: FlagMetadata;
}

/** The user's context: `targetingKey` is the identity; any other attribute may be targeted. */
export type EvaluationContext = Readonly<Record<string, unknown>>;
