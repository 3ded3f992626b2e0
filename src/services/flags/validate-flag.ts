import { isDeepStrictEqual } from 'node:util';
import type { FieldError } from '../../domain/errors.ts';
import type { Flag, FlagEnvironment, FlagType, JsonValue, Rollout } from '../../domain/flag.ts';
import { isPlainObject } from '../../domain/json.ts';
import { MAX_TOTAL_WEIGHT } from '../../evaluation/bucketing.ts';
import { validateTargeting } from '../../evaluation/jsonlogic/compile-targeting.ts';
import { validateRuleAudience, validateRules } from './validate-rules.ts';

const VALUE_CHECKS: Readonly<Record<FlagType, (value: unknown) => boolean>> = {
  boolean: (v) => typeof v === 'boolean',
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  object: (v) => isPlainObject(v),
};

/**
 * Everything about a whole flag that a JSON schema cannot say: types of values and references.
 * JsonLogic targeting is checked where it differs from `before`'s: targeting stored as a flagd
 * document wrote it may not compile (it then evaluates with PARSE_ERROR, decision 0102), and that
 * must not block other changes to the flag.
 */
export function validateFlag(
  flag: Flag,
  environmentKeys: ReadonlySet<string>,
  segmentKeys: ReadonlySet<string>,
  before?: Flag,
): FieldError[] {
  const errors: FieldError[] = [];
  const variantKeys = new Set<string>();
  flag.variants.forEach((variant, index) => {
    if (variantKeys.has(variant.key)) {
      errors.push({ path: `/variants/${index}/key`, message: `variant "${variant.key}" appears twice` });
    }
    variantKeys.add(variant.key);
    if (!VALUE_CHECKS[flag.type](variant.value)) {
      errors.push({
        path: `/variants/${index}/value`,
        message: `must be a ${flag.type === 'object' ? 'JSON object' : flag.type}, as the flag's type`,
      });
    }
  });
  for (const [envKey, config] of Object.entries(flag.environments)) {
    if (!environmentKeys.has(envKey)) {
      errors.push({ path: `/environments/${envKey}`, message: `no environment "${envKey}" in this project` });
      continue;
    }
    const unchangedTargeting = isDeepStrictEqual(before?.environments[envKey]?.targeting, config.targeting);
    errors.push(
      ...validateFlagEnvironment(
        config,
        variantKeys,
        segmentKeys,
        `/environments/${envKey}`,
        unchangedTargeting,
      ),
    );
  }
  return errors;
}

function validateFlagEnvironment(
  config: FlagEnvironment,
  variants: ReadonlySet<string>,
  segmentKeys: ReadonlySet<string>,
  path: string,
  unchangedTargeting: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const knownVariant = (variant: string | null | undefined, at: string) => {
    if (variant !== null && variant !== undefined && !variants.has(variant)) {
      errors.push({ path: at, message: `no variant "${variant}" in this flag` });
    }
  };
  knownVariant(config.offVariant, `${path}/offVariant`);
  knownVariant(config.defaultVariant, `${path}/defaultVariant`);
  if (config.defaultRollout)
    errors.push(...validateRollout(config.defaultRollout, variants, `${path}/defaultRollout`));
  config.targets.forEach((target, index) => {
    knownVariant(target.variant, `${path}/targets/${index}/variant`);
  });
  const ruleIds = new Set<string>();
  config.rules.forEach((rule, index) => {
    const at = `${path}/rules/${index}`;
    if (ruleIds.has(rule.id))
      errors.push({ path: `${at}/id`, message: `rule id "${rule.id}" appears twice` });
    ruleIds.add(rule.id);
    rule.segments.forEach((segment, i) => {
      if (!segmentKeys.has(segment))
        errors.push({ path: `${at}/segments/${i}`, message: `no segment "${segment}" in this project` });
    });
    errors.push(...validateRuleAudience(rule, at));
    errors.push(...validateRules(rule.conditions, segmentKeys, `${at}/conditions`));
    const serve = rule.serve as { variant?: string; rollout?: Rollout };
    if ((serve.variant === undefined) === (serve.rollout === undefined)) {
      errors.push({ path: `${at}/serve`, message: 'must have exactly one of "variant" or "rollout"' });
    } else if (serve.rollout) {
      errors.push(...validateRollout(serve.rollout, variants, `${at}/serve/rollout`));
    } else {
      knownVariant(serve.variant, `${at}/serve/variant`);
    }
  });
  if (config.targeting !== undefined) {
    if (config.rules.length > 0 || config.targets.length > 0) {
      errors.push({
        path: `${path}/targeting`,
        message: 'use either "targeting" (JsonLogic) or "rules" and "targets", not both',
      });
    }
    if (unchangedTargeting) return errors;
    errors.push(
      ...validateTargeting(config.targeting as JsonValue).map((e) => ({
        path: `${path}/targeting${e.path}`,
        message: e.message,
      })),
    );
  }
  return errors;
}

function validateRollout(rollout: Rollout, variants: ReadonlySet<string>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  rollout.weights.forEach((w, index) => {
    if (!variants.has(w.variant))
      errors.push({
        path: `${path}/weights/${index}/variant`,
        message: `no variant "${w.variant}" in this flag`,
      });
  });
  const total = rollout.weights.reduce((sum, w) => sum + w.weight, 0);
  if (total === 0) errors.push({ path: `${path}/weights`, message: 'weights must add up to more than 0' });
  if (total > MAX_TOTAL_WEIGHT) {
    errors.push({ path: `${path}/weights`, message: `weights must add up to at most ${MAX_TOTAL_WEIGHT}` });
  }
  return errors;
}
