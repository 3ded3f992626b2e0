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

/** One flag's definition in one environment, the segments it names as `$evaluators`, and what it cannot say exactly. */
interface ExportedFlag {
  readonly definition: FlagdFlagDefinition;
  readonly evaluators: ReadonlyMap<string, JsonValue>;
  readonly warnings: readonly FlagdExportWarning[];
}

function exportFlag(environmentKey: string, flag: Flag, translator: SegmentTranslator): ExportedFlag {
  const evaluators = new Map<string, JsonValue>();
  const warnings: FlagdExportWarning[] = [];
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
  const definition: FlagdFlagDefinition = {
    state: config.enabled ? 'ENABLED' : 'DISABLED',
    variants,
    defaultVariant,
    ...(targeting === undefined ? {} : { targeting }),
    ...(Object.keys(flag.metadata).length > 0 ? { metadata: { ...flag.metadata } } : {}),
  };
  return { definition, evaluators, warnings };
}

/** `$evaluators` as the document lists them: by key, in code-unit order. */
const sortedEvaluators = (evaluators: ReadonlyMap<string, JsonValue>): Record<string, JsonValue> =>
  Object.fromEntries([...evaluators].sort(([a], [b]) => (a < b ? -1 : 1)));

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
    const exported = exportFlag(environmentKey, flag, translator);
    definitions[flag.key] = exported.definition;
    for (const [key, logic] of exported.evaluators) evaluators.set(key, logic);
    warnings.push(...exported.warnings);
  }
  const document: FlagdDocument = {
    $schema: FLAGD_FLAGS_SCHEMA,
    flags: definitions,
    ...(evaluators.size > 0 ? { $evaluators: sortedEvaluators(evaluators) } : {}),
  };
  return { document, warnings };
}

const NO_EVALUATORS: ReadonlyMap<string, JsonValue> = new Map();

/** One flag's part of a document's text, `"key":{…}`, and the `$evaluators` it needs. */
interface FlagText {
  readonly translator: SegmentTranslator;
  readonly text: string;
  readonly evaluators: ReadonlyMap<string, JsonValue>;
}

/**
 * The text of flagd documents, each flag's part kept while its stored form is the same object
 * (decision 2094): after a change, a document costs translating the flags that changed and
 * joining the parts, where exporting and stringifying 50,000 flags took 150–250 ms of the loop at
 * every change a flagd sync stream was told of. Equal to `JSON.stringify` of `exportFlagd`'s
 * document. A change of the segments (a new list) translates every flag again.
 */
export class FlagdDocumentTexts {
  readonly #translators = new WeakMap<readonly Segment[], SegmentTranslator>();
  /** Environment key → each flag's text there. */
  readonly #texts = new Map<string, WeakMap<Flag, FlagText>>();

  document(environmentKey: string, flags: readonly Flag[], segments: readonly Segment[]): string {
    const translator = this.#translatorOf(segments);
    const evaluators = new Map<string, JsonValue>();
    const parts: string[] = new Array(flags.length);
    for (let i = 0; i < flags.length; i++) {
      const flagText = this.#textOf(environmentKey, flags[i] as Flag, translator);
      parts[i] = flagText.text;
      for (const [key, logic] of flagText.evaluators) evaluators.set(key, logic);
    }
    const evaluatorsText =
      evaluators.size > 0 ? `,"$evaluators":${JSON.stringify(sortedEvaluators(evaluators))}` : '';
    return `{"$schema":${JSON.stringify(FLAGD_FLAGS_SCHEMA)},"flags":{${parts.join(',')}}${evaluatorsText}}`;
  }

  #translatorOf(segments: readonly Segment[]): SegmentTranslator {
    let translator = this.#translators.get(segments);
    if (translator === undefined) {
      translator = new SegmentTranslator(segments);
      this.#translators.set(segments, translator);
    }
    return translator;
  }

  #textOf(environmentKey: string, flag: Flag, translator: SegmentTranslator): FlagText {
    let texts = this.#texts.get(environmentKey);
    if (texts === undefined) {
      texts = new WeakMap();
      this.#texts.set(environmentKey, texts);
    }
    const kept = texts.get(flag);
    if (kept !== undefined && kept.translator === translator) return kept;
    const { definition, evaluators } = exportFlag(environmentKey, flag, translator);
    const flagText = {
      translator,
      text: `${JSON.stringify(flag.key)}:${JSON.stringify(definition)}`,
      evaluators: evaluators.size > 0 ? evaluators : NO_EVALUATORS,
    };
    texts.set(flag, flagText);
    return flagText;
  }
}
