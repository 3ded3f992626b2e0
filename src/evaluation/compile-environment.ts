import type { EvaluationContext, EvaluationDetail } from '../domain/evaluation-result.ts';
import type { Flag } from '../domain/flag.ts';
import type { Segment } from '../domain/segment.ts';
import { type CompiledFlag, compileFlag } from './compile-flag.ts';
import { textOf } from './operators.ts';
import { type CompiledSegments, compileSegments, EvaluationPass } from './segments.ts';

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
  readonly segments: readonly Segment[];
  readonly compiledSegments: CompiledSegments;
  readonly sources: ReadonlyMap<string, Flag>;
  readonly flags: ReadonlyMap<string, CompiledFlag>;
  readonly flagKeys: readonly string[];
  #live: readonly CompiledFlag[] | undefined;

  constructor(
    environmentKey: string,
    segments: readonly Segment[],
    compiledSegments: CompiledSegments,
    sources: ReadonlyMap<string, Flag>,
    flags: ReadonlyMap<string, CompiledFlag>,
    flagKeys: readonly string[],
  ) {
    this.environmentKey = environmentKey;
    this.segments = segments;
    this.compiledSegments = compiledSegments;
    this.sources = sources;
    this.flags = flags;
    this.flagKeys = flagKeys;
  }

  /**
   * Non-archived flags in key order: what evaluateAll serves when not given keys. Built on first
   * use, so a snapshot patched by a write and replaced by the next one never pays for it.
   */
  get live(): readonly CompiledFlag[] {
    this.#live ??= this.flagKeys
      .map((key) => this.flags.get(key) as CompiledFlag)
      .filter((flag) => !flag.archived);
    return this.#live;
  }

  evaluate(flagKey: string, context: EvaluationContext, nowSeconds: number): EvaluationDetail | undefined {
    const flag = this.flags.get(flagKey);
    if (flag === undefined) return undefined;
    if (flag.constant !== undefined) return flag.constant;
    return flag.evaluate(context, targetingKeyOf(context), nowSeconds, new EvaluationPass());
  }

  evaluateAll(
    context: EvaluationContext,
    nowSeconds: number,
    flagKeys?: readonly string[],
  ): EvaluationDetail[] {
    const pass = new EvaluationPass();
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
      results[i] = (chosen[i] as CompiledFlag).evaluate(context, targetingKey, nowSeconds, pass);
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

/**
 * Compiles the flags named in `pending` into `into`, each after the flags it requires, so that its
 * evaluator can hold theirs. Flags not pending must already be in `into`. A prerequisite cycle
 * (refused at write time, so only a race could store one) compiles as a missing prerequisite: it
 * never holds, and nothing loops.
 */
function compileInOrder(
  pending: ReadonlySet<string>,
  sources: ReadonlyMap<string, Flag>,
  environmentKey: string,
  segments: CompiledSegments,
  into: Map<string, CompiledFlag>,
): void {
  const visiting = new Set<string>();
  const visit = (key: string): void => {
    const flag = sources.get(key);
    if (flag === undefined || into.has(key) || visiting.has(key)) return;
    visiting.add(key);
    for (const prerequisite of flag.environments[environmentKey]?.prerequisites ?? []) {
      if (pending.has(prerequisite.flag)) visit(prerequisite.flag);
    }
    into.set(key, compileFlag(flag, environmentKey, segments, into));
    visiting.delete(key);
  };
  for (const key of pending) visit(key);
}

/** `key` and every flag that requires it, directly or through others, in `environmentKey`. */
function withDependants(
  key: string,
  sources: ReadonlyMap<string, Flag>,
  environmentKey: string,
): Set<string> {
  const dependants = new Map<string, string[]>();
  for (const flag of sources.values()) {
    for (const prerequisite of flag.environments[environmentKey]?.prerequisites ?? []) {
      const list = dependants.get(prerequisite.flag);
      if (list === undefined) dependants.set(prerequisite.flag, [flag.key]);
      else list.push(flag.key);
    }
  }
  const found = new Set<string>([key]);
  for (const next of found) for (const dependant of dependants.get(next) ?? []) found.add(dependant);
  return found;
}

/** The compiled flags of `base` without `stale`, ready for those to be compiled again. */
function reusable(base: Snapshot, stale: ReadonlySet<string>): Map<string, CompiledFlag> {
  const flags = new Map(base.flags);
  for (const key of stale) flags.delete(key);
  return flags;
}

/** Compiles one environment of one project: every flag and segment, parsed once, ready to evaluate without I/O. */
export function compileEnvironment(input: EnvironmentInput): CompiledEnvironment {
  const segments = input.compiledSegments ?? compileSegments(input.segments);
  const sources = new Map<string, Flag>();
  for (const flag of input.flags) sources.set(flag.key, flag);
  const flags = new Map<string, CompiledFlag>();
  compileInOrder(new Set(sources.keys()), sources, input.environmentKey, segments, flags);
  const keys = [...flags.keys()].sort(byCodeUnits);
  return new Snapshot(input.environmentKey, input.segments, segments, sources, flags, keys);
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

/**
 * A new snapshot where `flag` is added or replaced, compiling only that flag and the flags that
 * require it; `compiled` is unchanged.
 */
export function withFlag(compiled: CompiledEnvironment, flag: Flag): CompiledEnvironment {
  const base = snapshotOf(compiled);
  const sources = new Map(base.sources).set(flag.key, flag);
  const stale = withDependants(flag.key, sources, base.environmentKey);
  const flags = reusable(base, stale);
  compileInOrder(stale, sources, base.environmentKey, base.compiledSegments, flags);
  let keys = base.flagKeys;
  if (!base.flags.has(flag.key)) {
    const at = positionOf(keys, flag.key);
    keys = [...keys.slice(0, at), flag.key, ...keys.slice(at)];
  }
  return new Snapshot(base.environmentKey, base.segments, base.compiledSegments, sources, flags, keys);
}

/** A new snapshot without the flag `flagKey` (the same snapshot when it has no such flag); flags requiring it are compiled again. */
export function withoutFlag(compiled: CompiledEnvironment, flagKey: string): CompiledEnvironment {
  const base = snapshotOf(compiled);
  if (!base.flags.has(flagKey)) return base;
  const sources = new Map(base.sources);
  sources.delete(flagKey);
  const stale = withDependants(flagKey, base.sources, base.environmentKey);
  const flags = reusable(base, stale);
  compileInOrder(stale, sources, base.environmentKey, base.compiledSegments, flags);
  const keys = base.flagKeys.filter((key) => key !== flagKey);
  return new Snapshot(base.environmentKey, base.segments, base.compiledSegments, sources, flags, keys);
}
