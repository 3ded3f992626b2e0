import type { ProjectResource } from './keyed-resource.ts';
import { type Rule, segmentsNamedBy } from './segment.ts';

/** Flag value types (docs/product.md §2). `object` carries any JSON object. */
export type FlagType = 'boolean' | 'string' | 'number' | 'object';
export const FLAG_TYPES: readonly FlagType[] = ['boolean', 'string', 'number', 'object'];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface Variant {
  readonly key: string;
  readonly value: JsonValue;
  readonly name?: string;
  readonly description?: string;
}

export interface RolloutWeight {
  readonly variant: string;
  /** Integer ≥ 0. */
  readonly weight: number;
}

/** A percentage split, bucketed exactly as flagd's `fractional` (docs/product.md §3). */
export interface Rollout {
  /** Attribute whose value is hashed; default `targetingKey`. */
  readonly bucketBy?: string;
  /** Hash seed; default the flag's key. */
  readonly seed?: string;
  readonly weights: readonly RolloutWeight[];
}

export type Serve = { readonly variant: string } | { readonly rollout: Rollout };

export interface TargetingRule {
  readonly id: string;
  readonly description?: string;
  /**
   * Set on purpose to serve everyone: a rule with no segments and no conditions is refused
   * without it, so nobody ships "everyone" by leaving a rule empty (decision 0603).
   */
  readonly matchAll?: boolean;
  /** Segment keys; the user must be in every one. */
  readonly segments: readonly string[];
  readonly conditions: readonly Rule[];
  readonly serve: Serve;
}

export interface IndividualTarget {
  readonly variant: string;
  /** targetingKey values served `variant`. */
  readonly values: readonly string[];
}

/** Another flag of the project that must serve one of `variants` (in the same environment) for this one to run (docs/product.md §10). */
export interface Prerequisite {
  /** The required flag's key. */
  readonly flag: string;
  readonly variants: readonly string[];
}

/** A flag's configuration in one environment. */
export interface FlagEnvironment {
  readonly enabled: boolean;
  readonly offVariant: string | null;
  readonly defaultVariant: string | null;
  readonly defaultRollout?: Rollout;
  readonly targets: readonly IndividualTarget[];
  readonly rules: readonly TargetingRule[];
  /** flagd-compatible JsonLogic targeting; when present, `rules` and `targets` are not used. */
  readonly targeting?: JsonValue;
  /** Checked before anything else when enabled; absent means none. */
  readonly prerequisites?: readonly Prerequisite[];
  /**
   * Created by someone the environment's gate would stop (decision 1854): the flag is not served
   * here (FLAG_NOT_FOUND, left out of bulk evaluation and flagd documents) until a write that
   * passed the gate configures it here. Absent: served.
   */
  readonly unconfigured?: true;
}

/** Whether the environment serves the flag at all: not while it waits for a gated write there (decision 1854). */
export const servedIn = (flag: Flag, environment: string): boolean =>
  flag.environments[environment]?.unconfigured !== true;

export type FlagMetadata = Readonly<Record<string, string | number | boolean>>;

export interface Flag extends ProjectResource {
  readonly type: FlagType;
  readonly variants: readonly Variant[];
  readonly tags: readonly string[];
  readonly archived: boolean;
  readonly metadata: FlagMetadata;
  /** Keyed by environment key. */
  readonly environments: Readonly<Record<string, FlagEnvironment>>;
}

/** Variants a boolean flag gets without being asked (docs/product.md §2). */
export const BOOLEAN_VARIANTS: readonly Variant[] = [
  { key: 'on', value: true },
  { key: 'off', value: false },
];

/** The variant named `preferred` when it has `value`, else the first variant that has `value`. */
function variantWithValue(variants: readonly Variant[], preferred: string, value: boolean): string | null {
  const named = variants.find((v) => v.key === preferred && v.value === value);
  return (named ?? variants.find((v) => v.value === value))?.key ?? null;
}

/**
 * The configuration a flag starts with in a new environment: disabled. A boolean flag serves its
 * false variant while off and its true one by default: `off` and `on` unless the flag names them
 * otherwise (flagd's files do: `{"zero": false, "non-zero": true}`).
 */
export function initialFlagEnvironment(type: FlagType, variants: readonly Variant[]): FlagEnvironment {
  if (type === 'boolean') {
    return {
      enabled: false,
      offVariant: variantWithValue(variants, 'off', false),
      defaultVariant: variantWithValue(variants, 'on', true),
      targets: [],
      rules: [],
    };
  }
  const first = variants[0]?.key ?? null;
  return { enabled: false, offVariant: first, defaultVariant: first, targets: [], rules: [] };
}

/** Fields of a flag itself: a patch setting one changes the flag in every environment. */
export const FLAG_FIELDS = [
  'name',
  'description',
  'type',
  'variants',
  'tags',
  'metadata',
  'archived',
] as const;

/** Fields of a flag's configuration in one environment (`?environment=` of a flag patch). */
export const ENVIRONMENT_FIELDS = [
  'enabled',
  'offVariant',
  'defaultVariant',
  'defaultRollout',
  'targets',
  'rules',
  'targeting',
  'prerequisites',
] as const;

/** Keys of the segments a flag's rules name, in any environment. */
export function segmentsNamedByFlag(flag: Flag): string[] {
  const keys = new Set<string>();
  for (const config of Object.values(flag.environments)) {
    for (const rule of config.rules) {
      for (const key of rule.segments) keys.add(key);
      for (const key of segmentsNamedBy(rule.conditions)) keys.add(key);
    }
  }
  return [...keys];
}
