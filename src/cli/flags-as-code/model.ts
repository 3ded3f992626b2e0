import {
  BOOLEAN_VARIANTS,
  type Flag,
  type FlagEnvironment,
  type FlagType,
  initialFlagEnvironment,
  type JsonValue,
  type Variant,
} from '../../domain/flag.ts';
import { type Environment, type Project, protectedByDefault } from '../../domain/project.ts';
import type { Segment } from '../../domain/segment.ts';

// One canonical form per resource, built from a file or from the server's answer alike, so that
// plan compares like with like: every field explicit, server-owned fields (id, version,
// timestamps, rule ids) left out, sets sorted, maps with sorted keys (docs/decisions/1740).

export type Json = JsonValue;
type Obj = { [key: string]: Json };

/** A JSON value with the keys of every object sorted: the same data always prints the same. */
export function sortKeys(value: unknown): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Obj = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) out[key] = sortKeys(item);
    }
    return out;
  }
  return value as Json;
}

const sorted = (values: unknown): string[] => [...((values as string[] | undefined) ?? [])].sort();
const str = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

/** What the server owns and a file never states (decision 1740): ids, versions, timestamps. */
type ServerOwned = 'id' | 'projectId' | 'version' | 'createdAt' | 'updatedAt';

// Each canonical form is its domain type without what the server owns, its nested parts in their
// canonical forms: a field the domain gains is a field plan must compare, or this does not compile.

export type EnvironmentState = Omit<Environment, ServerOwned | 'requiredApprovals'> & {
  readonly requiredApprovals: number;
};

export type ProjectState = Omit<Project, ServerOwned> & {
  readonly environments: readonly EnvironmentState[];
};

export type SegmentState = Omit<Segment, ServerOwned | 'rules'> & { readonly rules: readonly Obj[] };

export type FlagEnvironmentState = Readonly<Obj> &
  Pick<FlagEnvironment, 'enabled' | 'offVariant' | 'defaultVariant'> & {
    readonly targets: readonly Obj[];
    readonly rules: readonly Obj[];
  };

export type FlagState = Omit<Flag, ServerOwned | 'variants' | 'metadata' | 'environments'> & {
  readonly variants: readonly Obj[];
  readonly metadata: Obj;
  readonly environments: Readonly<Record<string, FlagEnvironmentState>>;
};

// biome-ignore lint/suspicious/noExplicitAny: files and answers are checked by the JSON Schema first
type Loose = any;

export function environmentState(e: Loose): EnvironmentState {
  return {
    key: e.key,
    name: str(e.name, e.key),
    description: str(e.description, ''),
    protected: typeof e.protected === 'boolean' ? e.protected : protectedByDefault(e.key),
    requiredApprovals: typeof e.requiredApprovals === 'number' ? e.requiredApprovals : 0,
  };
}

export function projectState(p: Loose, environments: readonly Loose[]): ProjectState {
  return {
    key: p.key,
    name: str(p.name, p.key),
    description: str(p.description, ''),
    environments: environments.map(environmentState).sort((a, b) => a.key.localeCompare(b.key)),
  };
}

const CONDITION_FIELDS = ['type', 'attribute', 'operator', 'value', 'values', 'segment'] as const;

/** A segment or flag condition in the API's field order: `negate: false` is the same as no `negate`. */
function conditionState(rule: Loose): Obj {
  const out: Obj = {};
  for (const field of CONDITION_FIELDS) if (rule[field] !== undefined) out[field] = sortKeys(rule[field]);
  if (rule.negate === true) out.negate = true;
  return out;
}

export function segmentState(s: Loose): SegmentState {
  return {
    key: s.key,
    name: str(s.name, s.key),
    description: str(s.description, ''),
    match: s.match === 'any' ? 'any' : 'all',
    rules: ((s.rules ?? []) as Loose[]).map(conditionState),
    included: sorted(s.included),
    excluded: sorted(s.excluded),
  };
}

/** A targeting rule without its server-assigned id, empty lists left out: ids do not diff (decision 1740). */
function targetingRuleState(rule: Loose): Obj {
  const out: Obj = {};
  if (typeof rule.description === 'string') out.description = rule.description;
  if (rule.matchAll === true) out.matchAll = true;
  if (rule.segments?.length) out.segments = [...rule.segments];
  if (rule.conditions?.length) out.conditions = rule.conditions.map(conditionState);
  out.serve = sortKeys(rule.serve);
  return out;
}

export function flagEnvironmentState(
  e: Loose,
  type: FlagType,
  variants: readonly Variant[],
): FlagEnvironmentState {
  const initial = initialFlagEnvironment(type, variants);
  const out: Obj = {
    enabled: e.enabled === true,
    offVariant: e.offVariant === undefined ? initial.offVariant : e.offVariant,
    defaultVariant: e.defaultVariant === undefined ? initial.defaultVariant : e.defaultVariant,
  };
  if (e.defaultRollout != null) out.defaultRollout = sortKeys(e.defaultRollout);
  out.targets = ((e.targets ?? []) as Loose[]).map((t) => ({ variant: t.variant, values: sorted(t.values) }));
  out.rules = ((e.rules ?? []) as Loose[]).map(targetingRuleState);
  if (e.targeting != null) out.targeting = sortKeys(e.targeting);
  if (e.prerequisites?.length) {
    out.prerequisites = (e.prerequisites as Loose[]).map((p) => ({
      flag: p.flag,
      variants: [...p.variants],
    }));
  }
  return out as FlagEnvironmentState;
}

function variantState(v: Loose): Obj {
  const out: Obj = { key: v.key, value: sortKeys(v.value) };
  if (typeof v.name === 'string') out.name = v.name;
  if (typeof v.description === 'string') out.description = v.description;
  return out;
}

export function flagState(f: Loose): FlagState {
  const type: FlagType = f.type ?? 'boolean';
  const variants = ((f.variants ?? (type === 'boolean' ? BOOLEAN_VARIANTS : [])) as Loose[]).map(
    variantState,
  );
  const environments: Record<string, FlagEnvironmentState> = {};
  for (const key of Object.keys(f.environments ?? {}).sort()) {
    environments[key] = flagEnvironmentState(f.environments[key], type, variants as unknown as Variant[]);
  }
  return {
    key: f.key,
    name: str(f.name, f.key),
    description: str(f.description, ''),
    type,
    variants,
    tags: sorted(f.tags),
    metadata: sortKeys(f.metadata ?? {}) as Obj,
    archived: f.archived === true,
    environments,
  };
}

// The compact forms pull writes: a field at its default is left out, as a file may leave it out.

const isEmpty = (value: unknown) =>
  (Array.isArray(value) && value.length === 0) ||
  (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);

export function compactProject(p: ProjectState): Obj {
  return {
    key: p.key,
    ...(p.name === p.key ? {} : { name: p.name }),
    ...(p.description === '' ? {} : { description: p.description }),
    environments: p.environments.map((e) => ({
      key: e.key,
      ...(e.name === e.key ? {} : { name: e.name }),
      ...(e.description === '' ? {} : { description: e.description }),
      ...(e.protected === protectedByDefault(e.key) ? {} : { protected: e.protected }),
      ...(e.requiredApprovals === 0 ? {} : { requiredApprovals: e.requiredApprovals }),
    })),
  };
}

export function compactSegment(s: SegmentState): Obj {
  const out: Obj = { key: s.key };
  if (s.name !== s.key) out.name = s.name;
  if (s.description !== '') out.description = s.description;
  if (s.match !== 'all') out.match = s.match;
  for (const field of ['rules', 'included', 'excluded'] as const) {
    if (!isEmpty(s[field])) out[field] = s[field] as Json;
  }
  return out;
}

const isBooleanDefault = (f: FlagState) =>
  f.type === 'boolean' &&
  JSON.stringify(f.variants) === JSON.stringify(BOOLEAN_VARIANTS.map((v) => variantState(v)));

export function compactFlag(f: FlagState, leaveOut: ReadonlySet<string> = new Set()): Obj {
  const out: Obj = { key: f.key };
  if (f.name !== f.key) out.name = f.name;
  if (f.description !== '') out.description = f.description;
  if (f.type !== 'boolean') out.type = f.type;
  if (!isBooleanDefault(f)) out.variants = f.variants as Json;
  if (f.tags.length > 0) out.tags = [...f.tags];
  if (!isEmpty(f.metadata)) out.metadata = f.metadata;
  if (f.archived) out.archived = true;
  const environments: Obj = {};
  for (const [key, state] of Object.entries(f.environments)) {
    if (leaveOut.has(key)) continue;
    const env: Obj = {};
    for (const [field, value] of Object.entries(state)) {
      if ((field === 'targets' || field === 'rules') && isEmpty(value)) continue;
      env[field] = value as Json;
    }
    environments[key] = env;
  }
  if (!isEmpty(environments)) out.environments = environments;
  return out;
}
