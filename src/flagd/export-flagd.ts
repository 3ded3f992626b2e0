import {
  type Flag,
  type FlagEnvironment,
  initialFlagEnvironment,
  type JsonValue,
  type TargetingRule,
} from '../domain/flag.ts';
import type { Segment } from '../domain/segment.ts';
import { SegmentTranslator, textsIn, translateRollout } from './native-to-json-logic.ts';

/** Something a flagd document cannot say exactly as Flagstaff does, and where. */
export interface FlagdExportWarning {
  readonly flag: string;
  /** The targeting rule concerned, when the warning is about one. */
  readonly rule?: string;
  readonly message: string;
}

export interface FlagdFlagDefinition {
  readonly state: 'ENABLED' | 'DISABLED';
  readonly variants: Readonly<Record<string, JsonValue>>;
  readonly defaultVariant: string | null;
  readonly targeting?: JsonValue;
  readonly metadata?: Readonly<Record<string, string | number | boolean>>;
}

export interface FlagdDocument {
  readonly $schema: string;
  readonly flags: Readonly<Record<string, FlagdFlagDefinition>>;
  readonly $evaluators?: Readonly<Record<string, JsonValue>>;
}

export interface FlagdExport {
  readonly document: FlagdDocument;
  readonly warnings: readonly FlagdExportWarning[];
}

export const FLAGD_FLAGS_SCHEMA = 'https://flagd.dev/schema/v0/flags.json';

const hasTargeting = (targeting: JsonValue | undefined): targeting is JsonValue =>
  Boolean(targeting) && Object.keys(targeting as object).length > 0;

/** Native targets, rules and default rollout as one `if` chain, in the order the native evaluator tries them. */
function nativeTargeting(
  flag: Flag,
  config: FlagEnvironment,
  segments: SegmentTranslator,
  evaluators: Map<string, JsonValue>,
  warnings: FlagdExportWarning[],
): JsonValue | undefined {
  const branches: JsonValue[] = [];
  for (const target of config.targets ?? []) {
    if (target.values.length > 0) {
      branches.push({ in: [{ var: 'targetingKey' }, textsIn(target.values)] }, target.variant);
    }
  }
  for (const rule of config.rules ?? []) {
    const { condition, reasons } = ruleCondition(rule, segments, evaluators);
    for (const reason of reasons) {
      warnings.push({ flag: flag.key, rule: rule.id, message: `rule does not export exactly: ${reason}` });
    }
    const serve =
      'rollout' in rule.serve ? translateRollout(rule.serve.rollout, flag.key) : rule.serve.variant;
    branches.push(condition, serve);
  }
  const otherwise = config.defaultRollout ? translateRollout(config.defaultRollout, flag.key) : null;
  // No target, rule or rollout: no targeting, so flagd serves the default as "static", like Flagstaff.
  if (branches.length === 0) return otherwise ?? undefined;
  return { if: [...branches, otherwise] };
}

function ruleCondition(
  rule: TargetingRule,
  segments: SegmentTranslator,
  evaluators: Map<string, JsonValue>,
): { condition: JsonValue; reasons: string[] } {
  const parts: JsonValue[] = [];
  const reasons: string[] = [];
  for (const key of rule.segments ?? []) {
    // A segment that does not exist holds nobody, natively and here.
    if (!segments.has(key)) {
      parts.push(false);
      continue;
    }
    const member = segments.translate(key);
    if (member.reasons.length > 0) reasons.push(`segment "${key}": ${member.reasons.join('; ')}`);
    // flagd's schema wants an expression object, not a bare `false`, as an evaluator.
    const logic =
      typeof member.logic === 'object' && member.logic !== null ? member.logic : { '!!': [member.logic] };
    evaluators.set(key, logic);
    parts.push({ $ref: key });
  }
  for (const condition of rule.conditions ?? []) {
    const translated = segments.translateRule(condition);
    reasons.push(...translated.reasons);
    parts.push(translated.logic);
  }
  // A rule with neither segments nor conditions (`matchAll: true`) matches everyone.
  const condition = parts.length === 0 ? true : parts.length === 1 ? (parts[0] as JsonValue) : { and: parts };
  return { condition, reasons };
}

/**
 * A flagd document (flags.json schema) for one environment: native targets, rules and rollouts
 * become JsonLogic that picks the same variants (segments as `$evaluators` named by `$ref`),
 * JsonLogic targeting is kept as it is. `warnings` name what flagd cannot do exactly; see
 * docs/decisions/0101-flagd-export-fidelity.md.
 */
export function exportFlagd(
  environmentKey: string,
  flags: readonly Flag[],
  segments: readonly Segment[],
): FlagdExport {
  const translator = new SegmentTranslator(segments);
  const evaluators = new Map<string, JsonValue>();
  const warnings: FlagdExportWarning[] = [];
  const definitions: Record<string, FlagdFlagDefinition> = {};
  for (const flag of flags) {
    const config = flag.environments[environmentKey] ?? initialFlagEnvironment(flag.type, flag.variants);
    const variants = Object.fromEntries(flag.variants.map((variant) => [variant.key, variant.value]));
    let defaultVariant = config.defaultVariant;
    if (defaultVariant !== null && !Object.hasOwn(variants, defaultVariant)) {
      // flagd refuses a whole document whose default variant is missing; Flagstaff serves no value.
      warnings.push({
        flag: flag.key,
        message: `default variant "${defaultVariant}" does not exist; exported as none`,
      });
      defaultVariant = null;
    }
    if (!config.enabled && config.offVariant !== null) {
      warnings.push({
        flag: flag.key,
        message: `disabled: Flagstaff serves "${config.offVariant}", flagd serves no value (the application's default)`,
      });
    }
    const targeting = hasTargeting(config.targeting)
      ? config.targeting
      : nativeTargeting(flag, config, translator, evaluators, warnings);
    definitions[flag.key] = {
      state: config.enabled ? 'ENABLED' : 'DISABLED',
      variants,
      defaultVariant,
      ...(targeting === undefined ? {} : { targeting }),
      ...(Object.keys(flag.metadata).length > 0 ? { metadata: { ...flag.metadata } } : {}),
    };
  }
  const document: FlagdDocument = {
    $schema: FLAGD_FLAGS_SCHEMA,
    flags: definitions,
    ...(evaluators.size > 0
      ? { $evaluators: Object.fromEntries([...evaluators].sort(([a], [b]) => (a < b ? -1 : 1))) }
      : {}),
  };
  return { document, warnings };
}
