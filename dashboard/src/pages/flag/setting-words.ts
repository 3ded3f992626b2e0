import type {
  FlagEnvironment,
  Prerequisite,
  Rollout,
  Serve,
  TargetingRule,
  Variant,
} from '../../../../src/domain/flag.ts';
import { ruleWords } from '../rule-words.ts';

// A flag's settings in the words people read them in, wherever they are read rather than edited:
// environments compared side by side (environment-copy.ts) and what a change request would change
// (patch-words.ts). Pure, so it is unit-tested through both.

const ROLLOUT_BY = 'targetingKey';

export const variantWords = (variant: string | null | undefined): string =>
  variant === null || variant === undefined ? 'no value (null)' : variant;

/** "on 50 %, off 50 %", with what it is bucketed by and its seed when they are not the defaults. */
export function rolloutWords(rollout: Rollout, flagKey: string): string {
  const total = rollout.weights.reduce((sum, w) => sum + w.weight, 0);
  const shares = rollout.weights.map(
    (w) => `${w.variant} ${total === 0 ? 0 : Math.round((w.weight / total) * 1000) / 10} %`,
  );
  const by = (rollout.bucketBy ?? ROLLOUT_BY) === ROLLOUT_BY ? '' : ` by ${rollout.bucketBy}`;
  const seed = (rollout.seed ?? flagKey) === flagKey ? '' : ` (seed ${rollout.seed})`;
  return `${shares.join(', ')}${by}${seed}`;
}

const serveWords = (serve: Serve, flagKey: string) =>
  'variant' in serve ? serve.variant : `a rollout: ${rolloutWords(serve.rollout, flagKey)}`;

/** "rule 1: in segment dutch-users → on". */
export const ruleLine = (rule: TargetingRule, index: number, flagKey: string): string =>
  `${ruleWords(index + 1, rule)} → ${serveWords(rule.serve, flagKey)}`;

const prerequisiteWords = (p: Prerequisite) => `${p.flag} serves ${p.variants.join(' or ')}`;

export const listOr = (lines: readonly string[], none: string): string =>
  lines.length === 0 ? none : lines.join('\n');

/** The words of an environment's setting, by field, for a value of the shape the API stores. */
const ENVIRONMENT_SETTINGS: {
  readonly [F in keyof FlagEnvironment]?: {
    readonly label: string;
    readonly words: (value: NonNullable<FlagEnvironment[F]>, flagKey: string) => string;
  };
} = {
  enabled: { label: 'switch', words: (on) => (on ? 'on' : 'off') },
  offVariant: { label: 'served when off', words: variantWords },
  defaultVariant: { label: 'default', words: variantWords },
  defaultRollout: { label: 'default rollout', words: (r, key) => `a rollout: ${rolloutWords(r, key)}` },
  targets: {
    label: 'individual targets',
    words: (targets) =>
      listOr(
        targets.map((t) => `${t.variant}: ${t.values.join(', ')}`),
        'none',
      ),
  },
  rules: {
    label: 'rules',
    words: (rules, key) =>
      listOr(
        rules.map((r, i) => ruleLine(r, i, key)),
        'none',
      ),
  },
  prerequisites: { label: 'prerequisites', words: (p) => listOr(p.map(prerequisiteWords), 'none') },
};

/** How an environment's field is named to people: "switch", "rules", "served when off". */
export const environmentFieldLabel = (field: string): string =>
  ENVIRONMENT_SETTINGS[field as keyof FlagEnvironment]?.label ?? field;

/**
 * An environment field's value in words ("on", "rule 1: in segment beta → on"), or undefined when
 * the field has no words or the value is not of its shape (then callers show the JSON).
 */
export function environmentValueWords(field: string, value: unknown, flagKey: string): string | undefined {
  const setting = ENVIRONMENT_SETTINGS[field as keyof FlagEnvironment];
  if (setting === undefined || value === null || value === undefined) return undefined;
  try {
    return (setting.words as (v: unknown, key: string) => string)(value, flagKey);
  } catch {
    // A value from an older or imported document that is not of the field's shape.
    return undefined;
  }
}

/** A flag's variants in words: "on = true, off = false". */
export const variantsWords = (variants: readonly Variant[]): string =>
  variants.map((v) => `${v.key} = ${JSON.stringify(v.value)}`).join(', ');
