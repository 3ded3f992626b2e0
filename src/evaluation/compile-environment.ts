import type { EvaluationContext, EvaluationDetail } from '../domain/evaluation-result.ts';
import { type Flag, servedIn } from '../domain/flag.ts';
import type { Segment } from '../domain/segment.ts';
import {
  type CompiledFlag,
  compileFlag,
  type PrerequisiteLookup,
  releaseResults,
  serve,
  sharingResults,
} from './compile-flag.ts';
import { textOf } from './operators.ts';
import { type CompiledSegments, compileSegments, EvaluationPass } from './segments.ts';
import { VersionedMap } from './versioned-map.ts';

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

/** The flags of one environment that require others, kept so a write to a prerequisite can recompile them. */
interface Dependencies {
  /** Prerequisite flag key → the keys of the flags that require it here (sorted, no duplicates). */
  readonly dependants: VersionedMap<string, readonly string[]>;
  /** The source of every flag that has prerequisites here: what compiles it again. */
  readonly requiring: VersionedMap<string, Flag>;
}

class Snapshot implements CompiledEnvironment {
  readonly environmentKey: string;
  readonly compiledSegments: CompiledSegments;
  readonly flags: VersionedMap<string, CompiledFlag>;
  readonly dependencies: Dependencies;
  readonly flagKeys: readonly string[];
  #live: readonly CompiledFlag[] | undefined;

  constructor(
    environmentKey: string,
    compiledSegments: CompiledSegments,
    flags: VersionedMap<string, CompiledFlag>,
    dependencies: Dependencies,
    flagKeys: readonly string[],
  ) {
    this.environmentKey = environmentKey;
    this.compiledSegments = compiledSegments;
    this.flags = flags;
    this.dependencies = dependencies;
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
      results[i] = serve(chosen[i] as CompiledFlag, context, targetingKey, nowSeconds, pass);
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

/** The keys of the flags `flag` requires in `environmentKey`, without duplicates. */
function prerequisitesOf(flag: Flag | undefined, environmentKey: string): string[] {
  const prerequisites = flag?.environments[environmentKey]?.prerequisites;
  return prerequisites === undefined || prerequisites.length === 0
    ? []
    : [...new Set(prerequisites.map((p) => p.flag))];
}

/**
 * Compiles the flags named in `pending`, each after the flags it requires, so that its evaluator
 * can hold theirs; a flag not pending is found in `compiled`. A prerequisite cycle (refused at
 * write time, so only a race could store one) compiles as a missing prerequisite: it never
 * holds, and nothing loops. Answers the flags compiled (a pending key without a source is not).
 */
function compileInOrder(
  pending: ReadonlySet<string>,
  sourceOf: (key: string) => Flag | undefined,
  environmentKey: string,
  segments: CompiledSegments,
  compiled: PrerequisiteLookup,
): Map<string, CompiledFlag> {
  const visit = inOrder(pending, sourceOf, environmentKey, segments, compiled);
  for (const key of pending) visit(key);
  return visit.fresh;
}

/** What `compileInOrder` does, one key at a time: `visit(key)` compiles it (after its prerequisites) into `fresh`. */
function inOrder(
  pending: ReadonlySet<string>,
  sourceOf: (key: string) => Flag | undefined,
  environmentKey: string,
  segments: CompiledSegments,
  compiled: PrerequisiteLookup,
): ((key: string) => void) & { readonly fresh: Map<string, CompiledFlag> } {
  const fresh = new Map<string, CompiledFlag>();
  const lookup: PrerequisiteLookup = {
    get: (key) => fresh.get(key) ?? (pending.has(key) ? undefined : compiled.get(key)),
  };
  const visiting = new Set<string>();
  const visit = (key: string): void => {
    if (fresh.has(key) || visiting.has(key)) return;
    const flag = sourceOf(key);
    if (flag === undefined) return;
    visiting.add(key);
    for (const prerequisite of prerequisitesOf(flag, environmentKey)) {
      if (pending.has(prerequisite)) visit(prerequisite);
    }
    fresh.set(key, compileFlag(flag, environmentKey, segments, lookup));
    visiting.delete(key);
  };
  return Object.assign(visit, { fresh });
}

/** Every flag that requires `key` in this environment, directly or through others (not `key` itself unless in a cycle). */
function dependantsOf(key: string, dependants: VersionedMap<string, readonly string[]>): Set<string> {
  const found = new Set<string>();
  const queue = [key];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const dependant of dependants.get(next) ?? []) {
      if (!found.has(dependant)) {
        found.add(dependant);
        queue.push(dependant);
      }
    }
  }
  return found;
}

/** The reverse prerequisite index of `flags` in one environment. */
function dependenciesOf(flags: readonly Flag[], environmentKey: string): Dependencies {
  const dependants = new Map<string, string[]>();
  const requiring: [string, Flag][] = [];
  for (const flag of flags) {
    const prerequisites = prerequisitesOf(flag, environmentKey);
    if (prerequisites.length === 0) continue;
    requiring.push([flag.key, flag]);
    for (const prerequisite of prerequisites) {
      const list = dependants.get(prerequisite);
      if (list === undefined) dependants.set(prerequisite, [flag.key]);
      else list.push(flag.key);
    }
  }
  for (const list of dependants.values()) list.sort(byCodeUnits);
  return { dependants: VersionedMap.of(dependants), requiring: VersionedMap.of(requiring) };
}

/**
 * The index with `key`'s prerequisites replaced by those of `flag` (undefined: the flag is
 * deleted): O(the flag's prerequisites), whatever the size of the project.
 */
function withPrerequisites(
  index: Dependencies,
  key: string,
  flag: Flag | undefined,
  environmentKey: string,
): Dependencies {
  const before = prerequisitesOf(index.requiring.get(key), environmentKey);
  const after = prerequisitesOf(flag, environmentKey);
  if (before.length === 0 && after.length === 0) return index;
  const changes: [string, readonly string[] | undefined][] = [];
  for (const prerequisite of before) {
    if (after.includes(prerequisite)) continue;
    const rest = (index.dependants.get(prerequisite) ?? []).filter((k) => k !== key);
    changes.push([prerequisite, rest.length === 0 ? undefined : rest]);
  }
  for (const prerequisite of after) {
    if (before.includes(prerequisite)) continue;
    const list = index.dependants.get(prerequisite) ?? [];
    const at = positionOf(list, key);
    changes.push([prerequisite, list.toSpliced(at, 0, key)]);
  }
  return {
    dependants: changes.length === 0 ? index.dependants : index.dependants.updated(changes),
    requiring: index.requiring.updated([[key, after.length === 0 ? undefined : flag]]),
  };
}

const NO_FLAGS: PrerequisiteLookup = { get: () => undefined };

/**
 * One environment being compiled a slice of flags at a time (`step`), so that compiling 50,000
 * flags in the background never holds the event loop for long (a turn of ~0.5–1.5 s made the
 * database pool's connection attempts time out: decision 2050); `finish` compiles the rest.
 */
class EnvironmentCompilation {
  readonly #input: EnvironmentInput;
  readonly #segments: CompiledSegments;
  readonly #sources = new Map<string, Flag>();
  readonly #visit: ReturnType<typeof inOrder>;
  readonly #keys: Iterator<string>;

  constructor(input: EnvironmentInput) {
    this.#input = input;
    this.#segments = input.compiledSegments ?? compileSegments(input.segments);
    for (const flag of input.flags) this.#sources.set(flag.key, flag);
    const keys = new Set(this.#sources.keys());
    this.#visit = inOrder(
      keys,
      (key) => this.#sources.get(key),
      input.environmentKey,
      this.#segments,
      NO_FLAGS,
    );
    this.#keys = keys.values();
  }

  /** Compiles up to `count` more flags (and the prerequisites they need); true once every flag is compiled. */
  step(count: number): boolean {
    for (let i = 0; i < count; i++) {
      const next = this.#keys.next();
      if (next.done) return true;
      this.#visit(next.value);
    }
    return false;
  }

  finish(): CompiledEnvironment {
    while (!this.step(Number.POSITIVE_INFINITY)) {}
    const compiled = this.#visit.fresh;
    const { environmentKey } = this.#input;
    return new Snapshot(
      environmentKey,
      this.#segments,
      VersionedMap.of(compiled),
      dependenciesOf([...this.#sources.values()], environmentKey),
      [...compiled.keys()].sort(byCodeUnits),
    );
  }
}

/** Compiles one environment of one project: every flag and segment, parsed once, ready to evaluate without I/O. */
export function compileEnvironment(input: EnvironmentInput): CompiledEnvironment {
  return new EnvironmentCompilation(input).finish();
}

/**
 * Every environment of a project compiled at once (benchmarks and heap snapshots), the way a node
 * compiles them: through `ProjectEnvironments`, segments compiled once for all.
 */
export function compileProject(
  environmentKeys: readonly string[],
  flags: readonly Flag[],
  segments: readonly Segment[],
): ReadonlyMap<string, CompiledEnvironment> {
  const environments = new ProjectEnvironments(environmentKeys, () => flags, segments);
  return new Map(environmentKeys.map((key) => [key, environments.get(key) as CompiledEnvironment]));
}

/**
 * A project's environments, each compiled on its first use from the project's flags as they are
 * then (decision 2000): a node starts serving without compiling environments no one asks for,
 * and `compileSome` compiles the rest, a slice at a time, when the node has time. Segments are
 * compiled once for all.
 */
export class ProjectEnvironments {
  readonly #flags: () => readonly Flag[];
  readonly #segments: readonly Segment[];
  readonly #compiledSegments: CompiledSegments;
  /** Every environment key; undefined until that environment is compiled. */
  readonly #compiled: Map<string, CompiledEnvironment | undefined>;
  /** Environments the background has begun to compile (`compileSome`), and the flags they compile. */
  readonly #compiling = new Map<string, { compilation: EnvironmentCompilation; flags: readonly Flag[] }>();

  constructor(
    environmentKeys: readonly string[],
    flags: () => readonly Flag[],
    segments: readonly Segment[],
    compiledSegments: CompiledSegments = compileSegments(segments),
    compiled: ReadonlyMap<string, CompiledEnvironment> = new Map(),
  ) {
    this.#flags = flags;
    this.#segments = segments;
    this.#compiledSegments = compiledSegments;
    this.#compiled = new Map(environmentKeys.map((key) => [key, compiled.get(key)]));
  }

  /** The environment compiled (now, if it is its first use); undefined when the project has no such environment. */
  get(environmentKey: string): CompiledEnvironment | undefined {
    let compiled = this.#compiled.get(environmentKey);
    // One lookup on the evaluation path; the second only before an environment's first use.
    if (compiled === undefined) {
      if (!this.#compiled.has(environmentKey)) return undefined;
      compiled = this.#installed(environmentKey, this.#compilationOf(environmentKey));
    }
    return compiled;
  }

  /**
   * Compiles up to `count` more flags of an environment not compiled yet, and installs it once
   * they all are: what the background does a turn of the event loop at a time.
   */
  compileSome(environmentKey: string, count: number): void {
    if (this.#compiled.get(environmentKey) !== undefined || !this.#compiled.has(environmentKey)) return;
    const started = this.#compilationOf(environmentKey);
    if (started.compilation.step(count)) this.#installed(environmentKey, started);
  }

  /** The environment's compilation, begun from the project's flags as they are now if it was not yet. */
  #compilationOf(environmentKey: string) {
    let started = this.#compiling.get(environmentKey);
    if (started === undefined) {
      // A flag waiting for a gated write in an environment does not exist there (decision 1854).
      const flags = this.#flags().filter((flag) => servedIn(flag, environmentKey));
      const compilation = new EnvironmentCompilation({
        environmentKey,
        flags,
        segments: this.#segments,
        compiledSegments: this.#compiledSegments,
      });
      started = { compilation, flags };
      this.#compiling.set(environmentKey, started);
    }
    return started;
  }

  #installed(
    environmentKey: string,
    { compilation, flags }: { compilation: EnvironmentCompilation; flags: readonly Flag[] },
  ): CompiledEnvironment {
    const compiled = compilation.finish();
    for (const flag of flags) releaseResults(flag);
    this.#compiling.delete(environmentKey);
    this.#compiled.set(environmentKey, compiled);
    return compiled;
  }

  /** The environment keys not compiled yet. */
  pending(): string[] {
    return [...this.#compiled].filter(([, compiled]) => compiled === undefined).map(([key]) => key);
  }

  /**
   * After a write: the environments compiled so far patched by `patch`, the others left to
   * compile, when first used, from `flags` (the project's flags after the write).
   */
  with(
    patch: (compiled: CompiledEnvironment, environmentKey: string) => CompiledEnvironment,
    flags: () => readonly Flag[],
  ): ProjectEnvironments {
    // One begun in the background is finished first: begun again from `flags`, it would start
    // over at every write, and a write a second could keep a large environment from ever finishing.
    for (const key of [...this.#compiling.keys()]) this.get(key);
    const patched = new Map<string, CompiledEnvironment>();
    sharingResults(() => {
      for (const [key, compiled] of this.#compiled) {
        if (compiled !== undefined) patched.set(key, patch(compiled, key));
      }
    });
    return new ProjectEnvironments(
      [...this.#compiled.keys()],
      flags,
      this.#segments,
      this.#compiledSegments,
      patched,
    );
  }
}

/** Flag key → the flag as written, or undefined where it is deleted: what one patch of a snapshot applies. */
export type FlagPatch = ReadonlyMap<string, Flag | undefined>;

/**
 * `keys` (sorted) without the keys `patch` deletes and with those it adds: one pass over `keys`
 * whatever the number of flags patched, so a batch of 500 new flags does not copy the key list
 * 500 times. The same array when no key comes or goes.
 */
function keysAfter(
  keys: readonly string[],
  patch: FlagPatch,
  present: (key: string) => boolean,
): readonly string[] {
  const added: string[] = [];
  let removed = false;
  for (const [key, flag] of patch) {
    if (flag === undefined) removed ||= present(key);
    else if (!present(key)) added.push(key);
  }
  if (added.length === 0 && !removed) return keys;
  added.sort(byCodeUnits);
  const merged: string[] = [];
  let next = 0;
  for (const key of keys) {
    while (next < added.length && (added[next] as string) < key) merged.push(added[next++] as string);
    if (!(patch.has(key) && patch.get(key) === undefined)) merged.push(key);
  }
  while (next < added.length) merged.push(added[next++] as string);
  return merged;
}

/**
 * `base` with the flags of `patch` written or deleted: those flags and every flag requiring one
 * of them, found through the reverse prerequisite index, are compiled again; the rest is shared
 * with `base`, which is unchanged. O(the flags patched and their dependants), not O(the project),
 * but for one pass over the key list when keys come or go.
 */
function patched(base: Snapshot, patch: FlagPatch): Snapshot {
  const environmentKey = base.environmentKey;
  let dependencies = base.dependencies;
  for (const [key, flag] of patch) dependencies = withPrerequisites(dependencies, key, flag, environmentKey);
  const stale = new Set<string>();
  for (const key of patch.keys()) {
    stale.add(key);
    for (const dependant of dependantsOf(key, dependencies.dependants)) stale.add(dependant);
  }
  const fresh = compileInOrder(
    stale,
    (k) => (patch.has(k) ? patch.get(k) : dependencies.requiring.get(k)),
    environmentKey,
    base.compiledSegments,
    base.flags,
  );
  const changes: [string, CompiledFlag | undefined][] = [...fresh];
  for (const [key, flag] of patch) if (flag === undefined) changes.push([key, undefined]);
  const keys = keysAfter(base.flagKeys, patch, (key) => base.flags.has(key));
  return new Snapshot(environmentKey, base.compiledSegments, base.flags.updated(changes), dependencies, keys);
}

/**
 * A new snapshot with each flag of `patch` added, replaced or (undefined) deleted, compiling only
 * those flags and the flags that require them; `compiled` is unchanged. The same snapshot when
 * the patch deletes only flags it does not have.
 */
export function withFlags(compiled: CompiledEnvironment, patch: FlagPatch): CompiledEnvironment {
  const base = snapshotOf(compiled);
  const effective = new Map([...patch].filter(([key, flag]) => flag !== undefined || base.flags.has(key)));
  return effective.size === 0 ? base : patched(base, effective);
}

/**
 * A new snapshot where `flag` is added or replaced, compiling only that flag and the flags that
 * require it; `compiled` is unchanged.
 */
export function withFlag(compiled: CompiledEnvironment, flag: Flag): CompiledEnvironment {
  return withFlags(compiled, new Map([[flag.key, flag]]));
}

/** A new snapshot without the flag `flagKey` (the same snapshot when it has no such flag); flags requiring it are compiled again. */
export function withoutFlag(compiled: CompiledEnvironment, flagKey: string): CompiledEnvironment {
  return withFlags(compiled, new Map([[flagKey, undefined]]));
}
