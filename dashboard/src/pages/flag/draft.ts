// The flag page's draft: the flag as its inputs hold it, and the PATCH that saves it. Pure, so it is
// unit-tested (draft.test.ts) apart from the page.
//
// Variants have a draft-only `id`, and every reference to a variant in the draft (off, default,
// rollout weights, targets, rule serves) holds that id, not the key: renaming a variant then
// renames every reference in every environment at once, and the key is looked up only when the
// patch is built.
import type {
  Flag,
  FlagEnvironment,
  FlagType,
  JsonValue,
  Rollout,
  Variant,
} from '../../../../src/domain/flag.ts';
import type { FieldError } from '../../api.ts';
import { type ConditionDraft, conditionFromDraft, conditionToDraft, listOf } from '../condition-draft.ts';

/** A variant as edited: its value as the text in the input. */
export interface VariantDraft {
  /** For the draft only: stays the same while the key is edited. */
  readonly id: string;
  readonly key: string;
  readonly value: string;
  readonly name?: string;
}

/** A rollout as edited: the weight typed for each variant id (a variant not listed weighs 0). */
export interface RolloutDraft {
  readonly bucketBy: string;
  readonly weights: Readonly<Record<string, string>>;
}

export interface ServeDraft {
  readonly kind: 'variant' | 'rollout';
  /** A variant id, or '' for none. */
  readonly variant: string;
  readonly rollout: RolloutDraft;
}

export interface RuleDraft {
  /** For React only: rules have no stable identity until the server gives them an id. */
  readonly uid: number;
  readonly id?: string;
  readonly description: string;
  /** Chosen on purpose: the rule serves everyone (`"matchAll": true`), whatever segments are listed. */
  readonly everyone: boolean;
  readonly segments: readonly string[];
  /** A segment chosen in the picker but not yet added: saving adds it, so the choice is never lost. */
  readonly pick: string;
  readonly conditions: readonly ConditionDraft[];
  readonly serve: ServeDraft;
}

export interface EnvironmentDraft {
  readonly enabled: boolean;
  /** A variant id, or '' for none. */
  readonly offVariant: string;
  readonly fallback: ServeDraft;
  /** By variant id: the targetingKeys it is served to, as typed. */
  readonly targets: Readonly<Record<string, string>>;
  readonly rules: readonly RuleDraft[];
  readonly targeting?: JsonValue;
}

export interface FlagDraft {
  readonly name: string;
  readonly description: string;
  readonly tags: string;
  readonly variants: readonly VariantDraft[];
  readonly environments: Readonly<Record<string, EnvironmentDraft>>;
}

let counter = 0;
/** A fresh id for a variant or rule added in the editor. */
const nextId = () => ++counter;

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

// Variants

export const variantDraftsOf = (variants: readonly Variant[]): VariantDraft[] =>
  variants.map((v, i) => ({
    id: `v${i}`,
    key: v.key,
    value:
      typeof v.value === 'string'
        ? v.value
        : JSON.stringify(v.value, null, v.value && typeof v.value === 'object' ? 2 : undefined),
    ...(v.name ? { name: v.name } : {}),
  }));

export const newVariantDraft = (
  type: FlagType,
  key = '',
  value = type === 'object' ? '{}' : '',
): VariantDraft => ({
  id: `n${nextId()}`,
  key,
  value,
});

/** Text → a value of the flag's type; text that is not one goes as it is, so the API names the field. */
export function parseValue(type: FlagType, text: string): JsonValue {
  if (type === 'string') return text;
  try {
    const value = JSON.parse(text) as JsonValue;
    return type === 'number' && typeof value !== 'number' ? text : value;
  } catch {
    return text;
  }
}

export const variantsOf = (type: FlagType, drafts: readonly VariantDraft[]): Variant[] =>
  drafts.map((d) => ({ key: d.key, value: parseValue(type, d.value), ...(d.name ? { name: d.name } : {}) }));

// Rollouts

/** Weights as numbers, in variant order: what the bar and the percentages show. */
export function weightsOf(rollout: RolloutDraft, variants: readonly VariantDraft[]): number[] {
  return variants.map((v) => Math.max(0, Number(rollout.weights[v.id] ?? '0') || 0));
}

/**
 * Each weight's share of the total in percent. Weights are relative (30/30 is 50 % each), so
 * the editor shows these beside what was typed.
 */
export function sharesOf(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => (total === 0 ? 0 : (w / total) * 100));
}

/**
 * The same split with weights that add up to 100, rounded by largest remainder so the total is
 * exact; with no weight at all, an even split.
 */
export function madeHundred(rollout: RolloutDraft, variants: readonly VariantDraft[]): RolloutDraft {
  if (variants.length === 0) return rollout;
  const weights = weightsOf(rollout, variants);
  const shares = weights.some((w) => w > 0) ? sharesOf(weights) : variants.map(() => 100 / variants.length);
  const floors = shares.map(Math.floor);
  let left = 100 - floors.reduce((a, b) => a + b, 0);
  const order = shares
    .map((s, i) => [s - Math.floor(s), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    floors[i] = (floors[i] ?? 0) + 1;
    left--;
  }
  return { ...rollout, weights: Object.fromEntries(variants.map((v, i) => [v.id, String(floors[i] ?? 0)])) };
}

function rolloutDraftOf(rollout: Rollout | undefined, variants: readonly VariantDraft[]): RolloutDraft {
  const idOf = new Map(variants.map((v) => [v.key, v.id]));
  if (!rollout) {
    // A new rollout starts as an even split of the first two variants.
    return { bucketBy: '', weights: Object.fromEntries(variants.map((v, i) => [v.id, i < 2 ? '50' : '0'])) };
  }
  const weights: Record<string, string> = {};
  for (const w of rollout.weights) {
    const id = idOf.get(w.variant);
    if (id !== undefined) weights[id] = String(w.weight);
  }
  return { bucketBy: rollout.bucketBy ?? '', weights };
}

/** The rollout as the API takes it: every variant of the flag, in order; weights that are not integers go as typed. */
export function rolloutOf(draft: RolloutDraft, variants: readonly VariantDraft[], seed?: string): Rollout {
  return {
    ...(draft.bucketBy.trim() ? { bucketBy: draft.bucketBy.trim() } : {}),
    ...(seed ? { seed } : {}),
    weights: variants.map((v) => {
      const text = draft.weights[v.id] ?? '0';
      const weight = Number.isInteger(Number(text)) && text.trim() !== '' ? Number(text) : text;
      return { variant: v.key, weight: weight as number };
    }),
  };
}

// The flag

function serveDraftOf(
  variant: string | null,
  rollout: Rollout | undefined,
  variants: readonly VariantDraft[],
): ServeDraft {
  return {
    kind: rollout ? 'rollout' : 'variant',
    variant: variants.find((v) => v.key === variant)?.id ?? '',
    rollout: rolloutDraftOf(rollout, variants),
  };
}

export const newRuleDraft = (variants: readonly VariantDraft[]): RuleDraft => ({
  uid: nextId(),
  description: '',
  everyone: false,
  segments: [],
  pick: '',
  conditions: [],
  // No variant until the person picks one: a rule that silently served the first was a trap.
  serve: serveDraftOf(null, undefined, variants),
});

/** Rules told to serve a variant without one chosen, as field errors beside their pickers. */
export function unchosenVariants(draft: FlagDraft): FieldError[] {
  return Object.entries(draft.environments).flatMap(([environment, e]) =>
    e.rules.flatMap((rule, i) =>
      rule.serve.kind === 'variant' && rule.serve.variant === ''
        ? [
            {
              path: `/environments/${environment}/rules/${i}/serve/variant`,
              message: 'Choose a variant to serve',
            },
          ]
        : [],
    ),
  );
}

function environmentDraftOf(config: FlagEnvironment, variants: readonly VariantDraft[]): EnvironmentDraft {
  return {
    enabled: config.enabled,
    offVariant: variants.find((v) => v.key === config.offVariant)?.id ?? '',
    fallback: serveDraftOf(config.defaultVariant, config.defaultRollout, variants),
    targets: Object.fromEntries(
      variants.map((v) => [
        v.id,
        config.targets
          .filter((t) => t.variant === v.key)
          .flatMap((t) => t.values)
          .join('\n'),
      ]),
    ),
    rules: config.rules.map((rule) => ({
      uid: nextId(),
      id: rule.id,
      description: rule.description ?? '',
      // A rule stored before "matchAll" existed, with neither segments nor conditions, served everyone.
      everyone: rule.matchAll === true || (rule.segments.length === 0 && rule.conditions.length === 0),
      segments: rule.segments,
      pick: '',
      conditions: rule.conditions.map(conditionToDraft),
      serve: serveDraftOf(
        'variant' in rule.serve ? rule.serve.variant : null,
        'rollout' in rule.serve ? rule.serve.rollout : undefined,
        variants,
      ),
    })),
    ...(config.targeting === undefined ? {} : { targeting: config.targeting }),
  };
}

export function draftOf(flag: Flag): FlagDraft {
  const variants = variantDraftsOf(flag.variants);
  return {
    name: flag.name,
    description: flag.description,
    tags: flag.tags.join(', '),
    variants,
    environments: Object.fromEntries(
      Object.entries(flag.environments).map(([k, c]) => [k, environmentDraftOf(c, variants)]),
    ),
  };
}

/** Individual targets as sent: only variants that list someone, in variant order. */
export const targetEntries = (
  targets: Readonly<Record<string, string>>,
  variants: readonly VariantDraft[],
): { variant: string; values: string[] }[] =>
  variants
    .map((v) => ({ variant: v.key, values: listOf(targets[v.id] ?? '') }))
    .filter((t) => t.values.length > 0);

const keyOf = (variants: readonly VariantDraft[], id: string): string | null =>
  variants.find((v) => v.id === id)?.key ?? null;

const serveOf = (serve: ServeDraft, variants: readonly VariantDraft[]) =>
  serve.kind === 'variant'
    ? { variant: keyOf(variants, serve.variant) ?? '' }
    : { rollout: rolloutOf(serve.rollout, variants) };

/** Who a rule is for, as sent: everyone on purpose, or its segments (a picked one included) and conditions. */
function scopeOf(rule: RuleDraft) {
  if (rule.everyone) return { matchAll: true };
  const segments =
    rule.pick && !rule.segments.includes(rule.pick) ? [...rule.segments, rule.pick] : rule.segments;
  return { segments, conditions: rule.conditions.map(conditionFromDraft) };
}

/** One environment's draft as the merge patch the API takes. */
export function environmentPatch(
  draft: EnvironmentDraft,
  variants: readonly VariantDraft[],
): Record<string, unknown> {
  const fallback = draft.fallback;
  return {
    enabled: draft.enabled,
    offVariant: keyOf(variants, draft.offVariant),
    defaultVariant: keyOf(variants, fallback.variant),
    defaultRollout: fallback.kind === 'rollout' ? rolloutOf(fallback.rollout, variants) : null,
    ...(draft.targeting === undefined
      ? {
          targets: targetEntries(draft.targets, variants),
          rules: draft.rules.map((r) => ({
            ...(r.id ? { id: r.id } : {}),
            ...(r.description.trim() ? { description: r.description.trim() } : {}),
            ...scopeOf(r),
            serve: serveOf(r.serve, variants),
          })),
        }
      : {}),
  };
}

export const tagsOf = (text: string): string[] =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/**
 * The PATCH for what changed since `initial`. When a variant's key changed or a variant went,
 * every environment is sent: each refers to variants by key, so each must say the new keys.
 */
export function flagPatch(type: FlagType, draft: FlagDraft, initial: FlagDraft): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (draft.name !== initial.name) patch.name = draft.name;
  if (draft.description !== initial.description) patch.description = draft.description;
  if (draft.tags !== initial.tags) patch.tags = tagsOf(draft.tags);
  if (!same(draft.variants, initial.variants)) patch.variants = variantsOf(type, draft.variants);
  const keys = new Map(draft.variants.map((v) => [v.id, v.key]));
  const rekeyed = initial.variants.some((v) => keys.get(v.id) !== v.key);
  const changed = Object.entries(draft.environments).filter(
    ([k, e]) => rekeyed || !same(e, initial.environments[k]),
  );
  if (changed.length > 0)
    patch.environments = Object.fromEntries(
      changed.map(([k, e]) => [k, environmentPatch(e, draft.variants)]),
    );
  return patch;
}
