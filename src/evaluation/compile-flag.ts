import type { EvaluationContext, EvaluationResult, Reason } from '../domain/evaluation-result.ts';
import {
  type Flag,
  type FlagEnvironment,
  type FlagMetadata,
  initialFlagEnvironment,
  type JsonValue,
  type Rollout,
  type TargetingRule,
} from '../domain/flag.ts';
import { compileTargeting } from './jsonlogic/compile-targeting.ts';
import { compileRollout } from './rollout.ts';
import { allOf, compileRule, type SegmentLookup, type UserPredicate } from './segments.ts';

/** An evaluation result with what the playground shows about how it was reached. */
export interface EvaluationDetail extends EvaluationResult {
  /** The targeting rule that decided, when one did. */
  readonly ruleId?: string;
  /** True when the user was listed in the flag's individual targets. */
  readonly targetMatched?: boolean;
  readonly flagMetadata: FlagMetadata;
}

/** Evaluates one flag for a context whose targetingKey text is passed alongside. */
export type FlagEvaluator = (
  context: EvaluationContext,
  targetingKey: string | undefined,
  nowSeconds: number,
) => EvaluationDetail;

export interface CompiledFlag {
  readonly key: string;
  readonly archived: boolean;
  readonly evaluate: FlagEvaluator;
  /** The one result of a flag whose result does not depend on the context (disabled, static). */
  readonly constant?: EvaluationDetail;
}

interface Provenance {
  readonly ruleId?: string;
  readonly targetMatched?: boolean;
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
  return (variant: string | null, reason: Reason, provenance: Provenance = {}): EvaluationDetail => {
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
}

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
 * flagd semantics (SPEC §6): a variant from targeting → `targeting`; none → defaultVariant, `default`.
 * flagd-core answers ERROR/GENERAL (the caller's default) for a variant the flag lacks, and
 * PARSE_ERROR for targeting that does not compile; we have no error reason, so both serve
 * defaultVariant with `default`, as if targeting had matched nothing.
 */
function compileFlagdTargeting(flag: Flag, config: FlagEnvironment, results: Results): FlagEvaluator {
  const fallback = results(config.defaultVariant, 'default');
  const picks = new Map(flag.variants.map((v) => [v.key, results(v.key, 'targeting')]));
  let targeting: ReturnType<typeof compileTargeting>;
  try {
    targeting = compileTargeting(config.targeting as JsonValue);
  } catch {
    return () => fallback;
  }
  const flagKey = flag.key;
  return (context, _targetingKey, nowSeconds) => {
    const variant = targeting(context, flagKey, nowSeconds);
    return (variant === null ? undefined : picks.get(variant)) ?? fallback;
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
    const fixed = results(config.defaultVariant, 'static');
    return () => fixed;
  }
  const fallback = results(config.defaultVariant, 'default');
  const serveDefault: Serve = config.defaultRollout
    ? serveRollout(config.defaultRollout, flag.key, results, fallback, {})
    : () => fallback;
  const hasTargets = targets.size > 0;
  return (context, targetingKey) => {
    if (hasTargets && targetingKey !== undefined) {
      const targeted = targets.get(targetingKey);
      if (targeted !== undefined) return targeted;
    }
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i] as CompiledRule;
      if (rule.matches(context, targetingKey)) return rule.serve(context);
    }
    return serveDefault(context);
  };
}

/**
 * Compiles one flag's configuration in one environment (a flag without one there is disabled, as a
 * new environment starts it) into an evaluator following SPEC §3, or §6 when it has JsonLogic
 * `targeting`. Never throws on a flag that passed validation, and evaluation never throws.
 */
export function compileFlag(flag: Flag, environmentKey: string, segments: SegmentLookup): CompiledFlag {
  const config = flag.environments[environmentKey] ?? initialFlagEnvironment(flag.type, flag.variants);
  const results = resultFactory(flag);
  let evaluate: FlagEvaluator;
  let constant: EvaluationDetail | undefined;
  if (!config.enabled) {
    const off = results(config.offVariant, 'disabled');
    constant = off;
    evaluate = () => off;
  } else if (hasTargeting(config.targeting)) {
    evaluate = compileFlagdTargeting(flag, config, results);
  } else {
    evaluate = compileNative(flag, config, segments, results);
    const fixed =
      config.targets.length === 0 && config.rules.length === 0 && config.defaultRollout === undefined;
    if (fixed) constant = evaluate({}, undefined, 0);
  }
  return constant === undefined
    ? { key: flag.key, archived: flag.archived, evaluate }
    : { key: flag.key, archived: flag.archived, evaluate, constant };
}
