import type { EvaluationContext } from '../domain/evaluation-result.ts';
import type { Flag } from '../domain/flag.ts';
import type { Segment } from '../domain/segment.ts';
import { type CompiledFlag, compileFlag, type EvaluationDetail } from './compile-flag.ts';
import { textOf } from './operators.ts';
import { beginEvaluationPass, type CompiledSegments, compileSegments } from './segments.ts';

export type { EvaluationDetail } from './compile-flag.ts';

/** An immutable, compiled snapshot of one environment of one project. */
export interface CompiledEnvironment {
  readonly environmentKey: string;
  /** undefined when the flag does not exist in this snapshot (archived flags still evaluate). */
  evaluate(flagKey: string, context: EvaluationContext, nowSeconds: number): EvaluationDetail | undefined;
  /** every non-archived flag (or only the listed keys that exist, archived or not), in key order. */
  evaluateAll(
    context: EvaluationContext,
    nowSeconds: number,
    flagKeys?: readonly string[],
  ): EvaluationDetail[];
  /** Every flag key in the snapshot, archived ones included, in key order. */
  readonly flagKeys: readonly string[];
}

export interface EnvironmentInput {
  readonly environmentKey: string;
  readonly flags: readonly Flag[];
  readonly segments: readonly Segment[];
  /** `segments` compiled already: segments do not depend on the environment, so a project's environments share them. */
  readonly compiledSegments?: CompiledSegments;
}

// Key order is UTF-16 code unit order, the same on every node whatever its locale.
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function targetingKeyOf(context: EvaluationContext): string | undefined {
  return Object.hasOwn(context, 'targetingKey') ? textOf(context.targetingKey) : undefined;
}

class Snapshot implements CompiledEnvironment {
  readonly environmentKey: string;
  readonly compiledSegments: CompiledSegments;
  readonly flags: ReadonlyMap<string, CompiledFlag>;
  readonly flagKeys: readonly string[];
  /** Non-archived flags in key order: what evaluateAll serves when not given keys. */
  readonly live: readonly CompiledFlag[];

  constructor(
    environmentKey: string,
    compiledSegments: CompiledSegments,
    flags: ReadonlyMap<string, CompiledFlag>,
    flagKeys: readonly string[],
  ) {
    this.environmentKey = environmentKey;
    this.compiledSegments = compiledSegments;
    this.flags = flags;
    this.flagKeys = flagKeys;
    this.live = this.flagKeys.map((key) => flags.get(key) as CompiledFlag).filter((flag) => !flag.archived);
  }

  evaluate(flagKey: string, context: EvaluationContext, nowSeconds: number): EvaluationDetail | undefined {
    const flag = this.flags.get(flagKey);
    if (flag === undefined) return undefined;
    if (flag.constant !== undefined) return flag.constant;
    beginEvaluationPass();
    return flag.evaluate(context, targetingKeyOf(context), nowSeconds);
  }

  evaluateAll(
    context: EvaluationContext,
    nowSeconds: number,
    flagKeys?: readonly string[],
  ): EvaluationDetail[] {
    beginEvaluationPass();
    const targetingKey = targetingKeyOf(context);
    const chosen =
      flagKeys === undefined
        ? this.live
        : [...new Set(flagKeys)].sort(byCodeUnits).flatMap((key) => {
            const flag = this.flags.get(key);
            return flag === undefined ? [] : [flag];
          });
    const results: EvaluationDetail[] = new Array(chosen.length);
    for (let i = 0; i < chosen.length; i++) {
      results[i] = (chosen[i] as CompiledFlag).evaluate(context, targetingKey, nowSeconds);
    }
    return results;
  }
}

/** Where `key` is, or would be inserted, in sorted `keys`. */
function positionOf(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((keys[middle] as string) < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

function snapshotOf(compiled: CompiledEnvironment): Snapshot {
  if (!(compiled instanceof Snapshot)) throw new TypeError('not a snapshot made by compileEnvironment');
  return compiled;
}

/** Compiles one environment of one project: every flag and segment, parsed once, ready to evaluate without I/O. */
export function compileEnvironment(input: EnvironmentInput): CompiledEnvironment {
  const segments = input.compiledSegments ?? compileSegments(input.segments);
  // Only the compiled form is kept: the source flags (every environment's configuration) would
  // double the memory of a large project (docs/performance.md, memory).
  const flags = new Map<string, CompiledFlag>();
  for (const flag of input.flags) {
    flags.set(flag.key, compileFlag(flag, input.environmentKey, segments));
  }
  const keys = [...flags.keys()].sort(byCodeUnits);
  return new Snapshot(input.environmentKey, segments, flags, keys);
}

/** Every environment of a project, compiling its segments once for all of them. */
export function compileProject(
  environmentKeys: readonly string[],
  flags: readonly Flag[],
  segments: readonly Segment[],
): ReadonlyMap<string, CompiledEnvironment> {
  const compiledSegments = compileSegments(segments);
  return new Map(
    environmentKeys.map((environmentKey) => [
      environmentKey,
      compileEnvironment({ environmentKey, flags, segments, compiledSegments }),
    ]),
  );
}

/** A new snapshot where `flag` is added or replaced, compiling only that flag; `compiled` is unchanged. */
export function withFlag(compiled: CompiledEnvironment, flag: Flag): CompiledEnvironment {
  const base = snapshotOf(compiled);
  const flags = new Map(base.flags).set(
    flag.key,
    compileFlag(flag, base.environmentKey, base.compiledSegments),
  );
  let keys = base.flagKeys;
  if (!base.flags.has(flag.key)) {
    const at = positionOf(keys, flag.key);
    keys = [...keys.slice(0, at), flag.key, ...keys.slice(at)];
  }
  return new Snapshot(base.environmentKey, base.compiledSegments, flags, keys);
}

/** A new snapshot without the flag `flagKey` (the same snapshot when it has no such flag). */
export function withoutFlag(compiled: CompiledEnvironment, flagKey: string): CompiledEnvironment {
  const base = snapshotOf(compiled);
  if (!base.flags.has(flagKey)) return base;
  const flags = new Map(base.flags);
  flags.delete(flagKey);
  const keys = base.flagKeys.filter((key) => key !== flagKey);
  return new Snapshot(base.environmentKey, base.compiledSegments, flags, keys);
}
