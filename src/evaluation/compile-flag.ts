import type { EvaluationContext, EvaluationDetail, Reason } from '../domain/evaluation-result.ts';
import {
  type Flag,
  type FlagEnvironment,
  type FlagMetadata,
  initialFlagEnvironment,
  type JsonValue,
  type Prerequisite,
  type Rollout,
  type TargetingRule,
} from '../domain/flag.ts';
import { deepFreeze } from '../domain/json.ts';
import { tryCompileTargeting } from './jsonlogic/compile-targeting.ts';
import { compileRollout } from './rollout.ts';
import {
  allOf,
  compileRule,
  type EvaluationPass,
  oncePerPass,
  type SegmentLookup,
  type UserPredicate,
} from './segments.ts';

/** Evaluates one flag for a context whose targetingKey text is passed alongside. */
export type FlagEvaluator = (
  context: EvaluationContext,
  targetingKey: string | undefined,
  nowSeconds: number,
  pass: EvaluationPass,
) => EvaluationDetail;

/**
 * A flag compiled for one environment: the one result of a flag whose result does not depend on
 * the context (disabled, static), or an evaluator. A constant has no evaluator of its own: a
 * closure per disabled flag and environment was ~100 bytes of a large project's memory.
 */
export type CompiledFlag = { readonly key: string; readonly archived: boolean } & Compiled;

type Compiled =
  | { readonly constant: EvaluationDetail; readonly evaluate?: undefined }
  | { readonly constant?: undefined; readonly evaluate: FlagEvaluator };

/** What a compiled flag serves `context`: its constant, or what its evaluator answers. */
export function serve(
  flag: Compiled,
  context: EvaluationContext,
  targetingKey: string | undefined,
  nowSeconds: number,
  pass: EvaluationPass,
): EvaluationDetail {
  return flag.constant !== undefined ? flag.constant : flag.evaluate(context, targetingKey, nowSeconds, pass);
}

/** Finds the compiled flags that prerequisites name, in the same environment. */
export interface PrerequisiteLookup {
  get(flagKey: string): CompiledFlag | undefined;
}

const NO_FLAGS: PrerequisiteLookup = { get: () => undefined };

interface Provenance {
  readonly ruleId?: string;
  readonly targetMatched?: boolean;
  readonly failedPrerequisite?: string;
}

/** flagd treats targeting as absent when it is falsy or has no keys (`{}`); so do we. */
function hasTargeting(targeting: JsonValue | undefined): targeting is JsonValue {
  return Boolean(targeting) && Object.keys(targeting as object).length > 0;
}

/**
 * Every result a flag can give is built once, here, and shared: evaluation allocates nothing.
 * Results are frozen so that no caller can change what the next caller receives. The same flag
 * compiled for several environments gets one factory (see `resultsOf`), so a result that two
 * environments both serve (the default variant, the off variant, a rule's variant) is one object.
 */
function resultFactory(flag: Flag) {
  // Two small arrays rather than a Map: a flag has a handful of variants, and a Map per flag and
  // environment costs more memory than the rest of a simple flag's compiled form.
  const variantKeys = flag.variants.map((variant) => variant.key);
  // A copy, so that freezing it leaves the caller's flag alone.
  const variantValues = flag.variants.map(({ value }) =>
    typeof value === 'object' && value !== null ? deepFreeze(structuredClone(value)) : value,
  );
  // Stored flags come with their metadata frozen and shared (rows.ts): no copy of it per flag.
  const flagMetadata: FlagMetadata = Object.isFrozen(flag.metadata)
    ? flag.metadata
    : Object.freeze({ ...flag.metadata });
  // The key and type, not the flag: a closure over the flag would keep every environment's
  // configuration alive as long as the snapshot (a third of a large project's memory).
  const { key, type } = flag;
  const made = new Map<string, EvaluationDetail>();
  const results = (variant: string | null, reason: Reason, provenance: Provenance = {}): EvaluationDetail => {
    const { ruleId, targetMatched, failedPrerequisite } = provenance;
    const name = JSON.stringify([variant, reason, ruleId, targetMatched, failedPrerequisite]);
    let result = made.get(name);
    if (result === undefined) {
      // A variant the flag lacks (refused at write time) is served as no variant at all.
      const index = variant === null ? -1 : variantKeys.indexOf(variant);
      result = Object.freeze({
        key,
        type,
        value: index === -1 ? null : (variantValues[index] as JsonValue),
        reason,
        variant: index === -1 ? null : variant,
        flagMetadata,
        ...provenance,
      });
      made.set(name, result);
    }
    return result;
  };
  /** The one result of a flag that cannot be evaluated: no value, reason `error` with OpenFeature's code. */
  results.failure = (errorMessage: string): EvaluationDetail =>
    Object.freeze({
      key,
      type,
      value: null,
      reason: 'error',
      variant: null,
      errorCode: 'PARSE_ERROR',
      errorMessage,
      flagMetadata,
    });
  return results;
}

/** When nothing is picked: the default variant, or (none set) no value with reason `default`, as flagd answers. */
const unpicked = (config: FlagEnvironment, reason: 'default' | 'static'): Reason =>
  config.defaultVariant === null ? 'default' : reason;

type Results = ReturnType<typeof resultFactory>;

/**
 * One result factory per source flag while its environments are compiled, so that they share
 * their results; released after (`releaseResults`). Keyed weakly, yet released all the same:
 * a node keeps its source flags (flagd export and sync read them), and a factory kept with its
 * flag would keep its memo of every result's name, ~1 KB a flag (docs/performance.md, "Memory per part").
 */
const factories = new WeakMap<Flag, Results>();

/** Drops the result factory of `flag` once every environment is compiled: what they share is made. */
export function releaseResults(flag: Flag): void {
  factories.delete(flag);
}

/** The flags given a factory since the innermost `sharingResults` began (undefined outside one). */
let madeDuring: Flag[] | undefined;

/**
 * Runs `compile` (synchronous: a write's patch of every environment), the environments it
 * compiles sharing each flag's results, then drops the factories it made. Without it a patched
 * flag kept its factory as long as the node kept the flag: 10,000 of them in a node that had
 * imported 10,000 flags (decision 2097).
 */
export function sharingResults<T>(compile: () => T): T {
  const outer = madeDuring;
  const made: Flag[] = [];
  madeDuring = made;
  try {
    return compile();
  } finally {
    madeDuring = outer;
    for (const flag of made) factories.delete(flag);
  }
}

function resultsOf(flag: Flag): Results {
  let results = factories.get(flag);
  if (results === undefined) {
    results = resultFactory(flag);
    factories.set(flag, results);
    madeDuring?.push(flag);
  }
  return results;
}
type Serve = (context: EvaluationContext) => EvaluationDetail;

/** Serves a rollout's pick (`split`), or `fallback` when the user cannot be bucketed. */
function serveRollout(
  rollout: Rollout,
  flagKey: string,
  results: Results,
  fallback: EvaluationDetail,
  provenance: Provenance,
): Serve {
  const pick = compileRollout(rollout, flagKey, splitResults(rollout, results, provenance));
  return (context) => pick(context) ?? fallback;
}

/** A function of its own: a closure here would put `results` in the context the evaluator keeps. */
function splitResults(rollout: Rollout, results: Results, provenance: Provenance): EvaluationDetail[] {
  return rollout.weights.map((weight) => results(weight.variant, 'split', provenance));
}

/** A rule naming a segment that does not exist matches nobody. */
const never: UserPredicate = () => false;

/** A rule serves one fixed result (`served`) or a rollout's pick (`serve`). */
type CompiledRule =
  | { readonly matches: UserPredicate; readonly served: EvaluationDetail; readonly serve?: undefined }
  | { readonly matches: UserPredicate; readonly served?: undefined; readonly serve: Serve };

function compileTargetingRule(
  rule: TargetingRule,
  flag: Flag,
  config: FlagEnvironment,
  segments: SegmentLookup,
  results: Results,
): CompiledRule {
  const predicates: UserPredicate[] = [];
  for (const key of rule.segments ?? []) predicates.push(segments.get(key) ?? never);
  for (const condition of rule.conditions ?? []) predicates.push(compileRule(condition, segments));
  const matches = allOf(predicates);
  const provenance = { ruleId: rule.id };
  if ('rollout' in rule.serve) {
    const fallback = results(config.defaultVariant, 'default', provenance);
    return { matches, serve: serveRollout(rule.serve.rollout, flag.key, results, fallback, provenance) };
  }
  return { matches, served: results(rule.serve.variant, 'targeting', provenance) };
}

/**
 * flagd semantics (docs/product.md §6): a variant from targeting → `targeting`; none → defaultVariant, `default`;
 * targeting that does not compile → reason `error`, PARSE_ERROR, on every evaluation. flagd-core
 * answers ERROR/GENERAL (the caller's default) for a variant the flag lacks; Flagstaff serves
 * defaultVariant with `default` instead, as if targeting had matched nothing (decision 0101).
 */
function compileFlagdTargeting(flag: Flag, config: FlagEnvironment, results: Results): Compiled {
  const compiled = tryCompileTargeting(config.targeting as JsonValue);
  if (!compiled.ok) {
    const { path, message } = compiled.error;
    return { constant: results.failure(`targeting${path ? ` at ${path}` : ''}: ${message}`) };
  }
  const fallback = results(config.defaultVariant, unpicked(config, 'default'));
  // The flag's variants (shared by every flag stored with the same ones) and each one's result, in
  // the same order: a scan of a handful of keys, where a Map per flag and environment cost ~280 bytes.
  const variants = flag.variants;
  const picks = targetingPicks(flag, results);
  const targeting = compiled.evaluate;
  const flagKey = flag.key;
  return {
    evaluate: (context, _targetingKey, nowSeconds) => {
      const variant = targeting(context, flagKey, nowSeconds);
      if (variant !== null) {
        for (let i = 0; i < variants.length; i++) {
          if ((variants[i] as { key: string }).key === variant) return picks[i] as EvaluationDetail;
        }
      }
      return fallback;
    },
  };
}

/** Each variant's `targeting` result, in the flag's order. A function of its own: `map`'s callback names `results`, which the evaluator must not keep. */
function targetingPicks(flag: Flag, results: Results): readonly EvaluationDetail[] {
  return flag.variants.map((v) => results(v.key, 'targeting'));
}

/** Individually targeted keys → their result; undefined when the flag targets no one (most flags: no Map to keep). */
function compileTargets(
  config: FlagEnvironment,
  results: Results,
): ReadonlyMap<string, EvaluationDetail> | undefined {
  if ((config.targets ?? []).every((target) => target.values.length === 0)) return undefined;
  const targets = new Map<string, EvaluationDetail>();
  for (const target of config.targets) {
    const served = results(target.variant, 'targeting', { targetMatched: true });
    // A key listed under two variants gets the first, as the list reads.
    for (const key of target.values) if (!targets.has(key)) targets.set(key, served);
  }
  return targets;
}

/**
 * A native flag that is enabled and not static. Closures here keep only what evaluation reads:
 * a callback naming `flag`, `config` or `results` would put them in the context the evaluator
 * shares, keeping the whole flag (every environment) alive as long as the snapshot.
 */
function compileNative(
  flag: Flag,
  config: FlagEnvironment,
  segments: SegmentLookup,
  results: Results,
): FlagEvaluator {
  const targets = compileTargets(config, results);
  const rules = compileRules(flag, config, segments, results);
  const fallback = results(config.defaultVariant, 'default');
  const rollout = config.defaultRollout
    ? serveRollout(config.defaultRollout, flag.key, results, fallback, {})
    : undefined;
  return (context, targetingKey, _nowSeconds, pass) => {
    if (targets !== undefined && targetingKey !== undefined) {
      const targeted = targets.get(targetingKey);
      if (targeted !== undefined) return targeted;
    }
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i] as CompiledRule;
      if (rule.matches(context, targetingKey, pass)) return rule.served ?? rule.serve(context);
    }
    return rollout === undefined ? fallback : rollout(context);
  };
}

/** A function of its own, for the same reason: `map`'s callback names what the evaluator must not keep. */
function compileRules(
  flag: Flag,
  config: FlagEnvironment,
  segments: SegmentLookup,
  results: Results,
): CompiledRule[] {
  return (config.rules ?? []).map((rule) => compileTargetingRule(rule, flag, config, segments, results));
}

/** A native flag serves one result to everyone when it targets no one, has no rules and no rollout. */
const isStatic = (config: FlagEnvironment): boolean =>
  (config.targets ?? []).every((target) => target.values.length === 0) &&
  (config.rules ?? []).length === 0 &&
  config.defaultRollout === undefined;

/** A prerequisite holds when its flag is enabled, not failing its own prerequisites, and serves a listed variant. */
function satisfies(result: EvaluationDetail, variants: ReadonlySet<string>): boolean {
  return (
    result.reason !== 'disabled' &&
    result.reason !== 'prerequisite_failed' &&
    result.variant !== null &&
    variants.has(result.variant)
  );
}

interface PrerequisiteCheck {
  readonly evaluate: FlagEvaluator;
  readonly variants: ReadonlySet<string>;
  readonly failed: EvaluationDetail;
}

/**
 * Puts the prerequisites in front of `inner`, checked in the order listed. Those whose flags
 * answer a constant are decided here, once; the others are evaluated through `evaluateOnce`, so a
 * flag required by several flags (a diamond) is evaluated once per pass. A missing flag never holds.
 */
function guardByPrerequisites(
  prerequisites: readonly Prerequisite[],
  lookup: PrerequisiteLookup,
  results: Results,
  offVariant: string | null,
  inner: Compiled,
): Compiled {
  const checks: PrerequisiteCheck[] = [];
  for (const prerequisite of prerequisites) {
    const failed = results(offVariant, 'prerequisite_failed', { failedPrerequisite: prerequisite.flag });
    const variants = new Set(prerequisite.variants);
    const flag = lookup.get(prerequisite.flag);
    const holds =
      flag === undefined
        ? false
        : flag.constant === undefined
          ? undefined
          : satisfies(flag.constant, variants);
    if (holds === true) continue;
    if (holds === false) {
      // Fails for everyone who gets this far: the prerequisites after it are never reached.
      if (checks.length === 0) return { constant: failed };
      checks.push({ evaluate: () => failed, variants, failed });
      break;
    }
    checks.push({ evaluate: onceFor(flag as CompiledFlag), variants, failed });
  }
  if (checks.length === 0) return inner;
  const evaluateInner: FlagEvaluator = inner.evaluate ?? constantEvaluator(inner.constant);
  return {
    evaluate: (context, targetingKey, nowSeconds, pass) => {
      for (let i = 0; i < checks.length; i++) {
        const check = checks[i] as PrerequisiteCheck;
        if (!satisfies(check.evaluate(context, targetingKey, nowSeconds, pass), check.variants))
          return check.failed;
      }
      return evaluateInner(context, targetingKey, nowSeconds, pass);
    },
  };
}

/**
 * Compiles one flag's configuration in one environment (a flag without one there is disabled, as a
 * new environment starts it) into an evaluator following docs/product.md §3, or §6 when it has JsonLogic
 * `targeting`, behind its prerequisites (§10), whose flags `prerequisites` must already hold
 * compiled. Never throws on a flag that passed validation, and evaluation never throws.
 */
export function compileFlag(
  flag: Flag,
  environmentKey: string,
  segments: SegmentLookup,
  prerequisites: PrerequisiteLookup = NO_FLAGS,
): CompiledFlag {
  const config = flag.environments[environmentKey] ?? initialFlagEnvironment(flag.type, flag.variants);
  const results = resultsOf(flag);
  let compiled: Compiled;
  if (!config.enabled) {
    compiled = constantly(results(config.offVariant, 'disabled'));
  } else if (hasTargeting(config.targeting)) {
    compiled = compileFlagdTargeting(flag, config, results);
  } else if (isStatic(config)) {
    compiled = constantly(results(config.defaultVariant, unpicked(config, 'static')));
  } else {
    compiled = { evaluate: compileNative(flag, config, segments, results) };
  }
  if (config.enabled && (config.prerequisites?.length ?? 0) > 0) {
    compiled = guardByPrerequisites(
      config.prerequisites as readonly Prerequisite[],
      prerequisites,
      results,
      config.offVariant,
      compiled,
    );
  }
  return compiled.constant === undefined
    ? { key: flag.key, archived: flag.archived, evaluate: compiled.evaluate }
    : { key: flag.key, archived: flag.archived, constant: compiled.constant };
}

/** A flag whose result is `result` whatever the context. */
function constantly(result: EvaluationDetail): Compiled {
  return { constant: result };
}

/** An evaluator answering `result`, for the rare caller that needs one (prerequisites in front of a constant). */
function constantEvaluator(result: EvaluationDetail): FlagEvaluator {
  return () => result;
}

/**
 * `flag.evaluate` remembered for the evaluation pass, made once per compiled flag and only for
 * flags that others require (most flags are required by none): every flag requiring it calls the
 * same memo, so in a diamond the shared prerequisite is evaluated once per pass.
 */
const memos = new WeakMap<CompiledFlag, FlagEvaluator>();

function onceFor(flag: CompiledFlag): FlagEvaluator {
  let once = memos.get(flag);
  if (once === undefined) {
    once = oncePerPass(flag.evaluate ?? constantEvaluator(flag.constant));
    memos.set(flag, once);
  }
  return once;
}
