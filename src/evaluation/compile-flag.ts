import type { EvaluationContext, EvaluationDetail, Reason } from '../domain/evaluation-result.ts';
import {
  type Flag,
  type FlagEnvironment,
  type FlagMetadata,
  initialFlagEnvironment,
  type JsonValue,
  type Rollout,
  type TargetingRule,
} from '../domain/flag.ts';
import { tryCompileTargeting } from './jsonlogic/compile-targeting.ts';
import { compileRollout } from './rollout.ts';
import { allOf, compileRule, EvaluationPass, type SegmentLookup, type UserPredicate } from './segments.ts';

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
  const values = new Map<string, JsonValue>();
  for (const { key, value } of flag.variants) {
    // A copy, so that freezing it leaves the caller's flag alone.
    values.set(key, typeof value === 'object' && value !== null ? deepFreeze(structuredClone(value)) : value);
  }
  const flagMetadata: FlagMetadata = Object.freeze({ ...flag.metadata });
  const results = (variant: string | null, reason: Reason, provenance: Provenance = {}): EvaluationDetail => {
    // A variant the flag lacks (refused at write time) is served as no variant at all.
    const known = variant !== null && values.has(variant);
    return Object.freeze({
      key: flag.key,
      type: flag.type,
      value: known ? (values.get(variant) as JsonValue) : null,
      reason,
      variant: known ? variant : null,
      flagMetadata,
      ...provenance,
    });
  };
  /** The one result of a flag that cannot be evaluated: no value, reason `error` with OpenFeature's code. */
  results.failure = (errorMessage: string): EvaluationDetail =>
    Object.freeze({
      key: flag.key,
      type: flag.type,
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
  const never: UserPredicate = () => false;
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
  const rules = (config.rules ?? []).map((rule) =>
    compileTargetingRule(rule, flag, config, segments, results),
  );
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
    ({ evaluate, constant } = compileFlagdTargeting(flag, config, results));
  } else {
    evaluate = compileNative(flag, config, segments, results);
    const fixed =
      config.targets.length === 0 && config.rules.length === 0 && config.defaultRollout === undefined;
    if (fixed) constant = evaluate({}, undefined, 0, new EvaluationPass());
  }
  return constant === undefined
    ? { key: flag.key, archived: flag.archived, evaluate }
    : { key: flag.key, archived: flag.archived, evaluate, constant };
}
