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
import { tryCompileTargeting } from './jsonlogic/compile-targeting.ts';
import { compileRollout } from './rollout.ts';
import {
  allOf,
  compileRule,
  EvaluationPass,
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

export interface CompiledFlag {
  readonly key: string;
  readonly archived: boolean;
  readonly evaluate: FlagEvaluator;
  /** The one result of a flag whose result does not depend on the context (disabled, static). */
  readonly constant?: EvaluationDetail;
  /** `evaluate` remembered for the evaluation pass: what flags requiring this one call. */
  readonly evaluateOnce: FlagEvaluator;
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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** flagd treats targeting as absent when it is falsy or has no keys (`{}`); so do we. */
function hasTargeting(targeting: JsonValue | undefined): targeting is JsonValue {
  return Boolean(targeting) && Object.keys(targeting as object).length > 0;
}

/**
 * Every result a flag can give is built once, here, and shared: evaluation allocates nothing.
 * Results are frozen so that no caller can change what the next caller receives.
 */
function resultFactory(flag: Flag) {
  // Two small arrays rather than a Map: a flag has a handful of variants, and a Map per flag and
  // environment costs more memory than the rest of a simple flag's compiled form.
  const variantKeys = flag.variants.map((variant) => variant.key);
  // A copy, so that freezing it leaves the caller's flag alone.
  const variantValues = flag.variants.map(({ value }) =>
    typeof value === 'object' && value !== null ? deepFreeze(structuredClone(value)) : value,
  );
  const flagMetadata: FlagMetadata = Object.freeze({ ...flag.metadata });
  // The key and type, not the flag: a closure over the flag would keep every environment's
  // configuration alive as long as the snapshot (a third of a large project's memory).
  const { key, type } = flag;
  const results = (variant: string | null, reason: Reason, provenance: Provenance = {}): EvaluationDetail => {
    // A variant the flag lacks (refused at write time) is served as no variant at all.
    const index = variant === null ? -1 : variantKeys.indexOf(variant);
    return Object.freeze({
      key,
      type,
      value: index === -1 ? null : (variantValues[index] as JsonValue),
      reason,
      variant: index === -1 ? null : variant,
      flagMetadata,
      ...provenance,
    });
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
type Serve = (context: EvaluationContext) => EvaluationDetail;

/** Serves a rollout's pick (`split`), or `fallback` when the user cannot be bucketed. */
function serveRollout(
  rollout: Rollout,
  flagKey: string,
  results: Results,
  fallback: EvaluationDetail,
  provenance: Provenance,
): Serve {
  const outcomes = rollout.weights.map((w) => results(w.variant, 'split', provenance));
  const pick = compileRollout(rollout, flagKey, outcomes);
  return (context) => pick(context) ?? fallback;
}

/** A rule naming a segment that does not exist matches nobody. */
const never: UserPredicate = () => false;

interface CompiledRule {
  readonly matches: UserPredicate;
  readonly serve: Serve;
}

function compileTargetingRule(
  rule: TargetingRule,
  flag: Flag,
  config: FlagEnvironment,
  segments: SegmentLookup,
  results: Results,
): CompiledRule {
  const matches = allOf([
    ...(rule.segments ?? []).map((key) => segments.get(key) ?? never),
    ...(rule.conditions ?? []).map((condition) => compileRule(condition, segments)),
  ]);
  const provenance = { ruleId: rule.id };
  if ('rollout' in rule.serve) {
    const fallback = results(config.defaultVariant, 'default', provenance);
    return { matches, serve: serveRollout(rule.serve.rollout, flag.key, results, fallback, provenance) };
  }
  const served = results(rule.serve.variant, 'targeting', provenance);
  return { matches, serve: () => served };
}

/**
 * flagd semantics (SPEC §6): a variant from targeting → `targeting`; none → defaultVariant, `default`;
 * targeting that does not compile → reason `error`, PARSE_ERROR, on every evaluation. flagd-core
 * answers ERROR/GENERAL (the caller's default) for a variant the flag lacks; Flagstaff serves
 * defaultVariant with `default` instead, as if targeting had matched nothing (decision 0101).
 */
function compileFlagdTargeting(
  flag: Flag,
  config: FlagEnvironment,
  results: Results,
): { evaluate: FlagEvaluator; constant?: EvaluationDetail } {
  const compiled = tryCompileTargeting(config.targeting as JsonValue);
  if (!compiled.ok) {
    const { path, message } = compiled.error;
    const failure = results.failure(`targeting${path ? ` at ${path}` : ''}: ${message}`);
    return { evaluate: () => failure, constant: failure };
  }
  const fallback = results(config.defaultVariant, unpicked(config, 'default'));
  const picks = new Map(flag.variants.map((v) => [v.key, results(v.key, 'targeting')]));
  const targeting = compiled.evaluate;
  const flagKey = flag.key;
  return {
    evaluate: (context, _targetingKey, nowSeconds) => {
      const variant = targeting(context, flagKey, nowSeconds);
      return (variant === null ? undefined : picks.get(variant)) ?? fallback;
    },
  };
}

function compileNative(
  flag: Flag,
  config: FlagEnvironment,
  segments: SegmentLookup,
  results: Results,
): FlagEvaluator {
  const targets = new Map<string, EvaluationDetail>();
  for (const target of config.targets ?? []) {
    const served = results(target.variant, 'targeting', { targetMatched: true });
    // A key listed under two variants gets the first, as the list reads.
    for (const key of target.values) if (!targets.has(key)) targets.set(key, served);
  }
  // A loop, not a closure: a callback naming `flag` would put it in the context the evaluator
  // below shares, keeping the whole flag (every environment) alive as long as the snapshot.
  const rules: CompiledRule[] = [];
  for (const rule of config.rules ?? [])
    rules.push(compileTargetingRule(rule, flag, config, segments, results));
  if (targets.size === 0 && rules.length === 0 && config.defaultRollout === undefined) {
    const fixed = results(config.defaultVariant, unpicked(config, 'static'));
    return () => fixed;
  }
  const fallback = results(config.defaultVariant, 'default');
  const serveDefault: Serve = config.defaultRollout
    ? serveRollout(config.defaultRollout, flag.key, results, fallback, {})
    : () => fallback;
  const hasTargets = targets.size > 0;
  return (context, targetingKey, _nowSeconds, pass) => {
    if (hasTargets && targetingKey !== undefined) {
      const targeted = targets.get(targetingKey);
      if (targeted !== undefined) return targeted;
    }
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i] as CompiledRule;
      if (rule.matches(context, targetingKey, pass)) return rule.serve(context);
    }
    return serveDefault(context);
  };
}

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
  inner: { evaluate: FlagEvaluator; constant?: EvaluationDetail | undefined },
): { evaluate: FlagEvaluator; constant?: EvaluationDetail | undefined } {
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
      if (checks.length === 0) return { evaluate: () => failed, constant: failed };
      checks.push({ evaluate: () => failed, variants, failed });
      break;
    }
    checks.push({ evaluate: (flag as CompiledFlag).evaluateOnce, variants, failed });
  }
  if (checks.length === 0) return inner;
  const evaluateInner = inner.evaluate;
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
 * new environment starts it) into an evaluator following SPEC §3, or §6 when it has JsonLogic
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
  const results = resultFactory(flag);
  let compiled: { evaluate: FlagEvaluator; constant?: EvaluationDetail | undefined };
  if (!config.enabled) {
    const off = results(config.offVariant, 'disabled');
    compiled = { evaluate: () => off, constant: off };
  } else if (hasTargeting(config.targeting)) {
    compiled = compileFlagdTargeting(flag, config, results);
  } else {
    const evaluate = compileNative(flag, config, segments, results);
    const fixed =
      config.targets.length === 0 && config.rules.length === 0 && config.defaultRollout === undefined;
    compiled = { evaluate, constant: fixed ? evaluate({}, undefined, 0, new EvaluationPass()) : undefined };
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
  const { evaluate, constant } = compiled;
  const evaluateOnce = constant === undefined ? oncePerPass(evaluate) : () => constant;
  return constant === undefined
    ? { key: flag.key, archived: flag.archived, evaluate, evaluateOnce }
    : { key: flag.key, archived: flag.archived, evaluate, constant, evaluateOnce };
}
