import type { EvaluationContext } from '../domain/evaluation-result.ts';
import type { Rollout } from '../domain/flag.ts';
import { compileAttributePath } from './attribute-path.ts';
import { bucketOfPrepared, bucketTable } from './bucketing.ts';
import { prepareSeed } from './murmur3.ts';
import { textOf } from './operators.ts';

/** Picks one of a rollout's outcomes for a context, or undefined when the context cannot be bucketed. */
export type RolloutPicker<T> = (context: EvaluationContext) => T | undefined;

/**
 * Compiles a rollout whose i-th weight serves `outcomes[i]`. It buckets the text
 * `(seed ?? flagKey) + bucketBy attribute` as flagd's `fractional` does; the pick is undefined when
 * the attribute is missing or not a string, number or boolean, or when no weight can be picked.
 */
export function compileRollout<T>(
  rollout: Rollout,
  flagKey: string,
  outcomes: readonly T[],
): RolloutPicker<T> {
  const read = compileAttributePath(rollout.bucketBy ?? 'targetingKey');
  const seed = prepareSeed(rollout.seed ?? flagKey);
  const table = bucketTable(rollout.weights.map((w) => w.weight));
  return (context) => {
    const value = textOf(read(context));
    if (value === undefined) return undefined;
    const index = bucketOfPrepared(table, seed, value);
    return index < 0 ? undefined : outcomes[index];
  };
}
