import { notFound, validationFailed } from '../../domain/errors.ts';
import {
  ENVIRONMENT_FIELDS,
  type Flag,
  type FlagEnvironment,
  type FlagMetadata,
  type FlagType,
  initialFlagEnvironment,
  type TargetingRule,
  type Variant,
} from '../../domain/flag.ts';
import { newId } from '../../domain/ids.ts';
import type { FlagEnvironmentPatch, FlagPatch } from '../../domain/schemas/flag-input.ts';
import type { TargetingRuleInput } from '../../domain/schemas/rules.ts';
import { mergeField, mergePatch } from '../core/merge-patch.ts';
import type { PatchReach } from './patch-reach.ts';

/** Whether a patch sets environment fields at its top level (for `?environment=`). */
const setsEnvironmentFields = (patch: FlagPatch) => ENVIRONMENT_FIELDS.some((f) => patch[f] !== undefined);

/**
 * `stored` with a merge patch applied, as its next version stamped `at` (not yet validated):
 * top-level environment fields are `environment`'s. `reach` is the patch's, worked out once by
 * the caller; an environment it names that the flag lacks is a 404, a change of type a 400.
 */
export function mergeFlagPatch(
  stored: Flag,
  patch: FlagPatch,
  environment: string,
  reach: PatchReach,
  at: string,
): Flag {
  if (patch.type !== undefined && patch.type !== stored.type) {
    throw validationFailed('The type of a flag cannot change; create a new flag instead.', [
      { path: '/type', message: `is ${stored.type} and cannot change` },
    ]);
  }
  for (const key of reach.environments) {
    if (stored.environments[key] === undefined)
      throw notFound(`No environment "${key}" in the flag's project.`);
  }
  const environments: Record<string, FlagEnvironment> = { ...stored.environments };
  // A flag patch carries its top-level environment fields itself: patchEnvironment reads only those.
  const environmentPatches: [string, FlagEnvironmentPatch][] = [
    ...(setsEnvironmentFields(patch) ? [[environment, patch] as [string, FlagEnvironmentPatch]] : []),
    ...Object.entries(patch.environments ?? {}),
  ];
  for (const [key, environmentPatch] of environmentPatches) {
    const current = environments[key];
    if (current !== undefined) environments[key] = patchEnvironment(current, environmentPatch);
  }
  return {
    ...stored,
    name: patch.name ?? stored.name,
    description: patch.description === null ? '' : (patch.description ?? stored.description),
    variants: patch.variants ?? stored.variants,
    tags: patch.tags === null ? [] : (patch.tags ?? stored.tags),
    metadata:
      patch.metadata === undefined
        ? stored.metadata
        : // The patch schema lets metadata values be any JSON (only creation restricts them).
          ((mergePatch(stored.metadata, patch.metadata) ?? {}) as FlagMetadata),
    archived: patch.archived ?? stored.archived,
    version: stored.version + 1,
    updatedAt: at,
    environments,
  };
}

/**
 * A flag's configuration in one environment after a merge patch (RFC 7396: null removes, and
 * removed fields take their defaults). JsonLogic `targeting` is replaced whole: merging two
 * expressions key by key would make a third. Rules sent back with their id keep it, so links to a
 * rule survive edits; new rules get one. The result is validated before it is written (validateFlag).
 */
function patchEnvironment(current: FlagEnvironment, patch: FlagEnvironmentPatch): FlagEnvironment {
  // A write configuring the environment makes it serve the flag (decision 1854): it passed the gate.
  const { defaultRollout, targeting, prerequisites, unconfigured: _, ...rest } = current;
  const rollout =
    patch.defaultRollout === undefined || patch.defaultRollout === null
      ? mergeField(defaultRollout, patch.defaultRollout)
      : { ...defaultRollout, ...patch.defaultRollout };
  const rules = mergeField<readonly (TargetingRule | TargetingRuleInput)[]>(current.rules, patch.rules) ?? [];
  const required = mergeField(prerequisites, patch.prerequisites);
  const jsonLogic = mergeField(targeting, patch.targeting);
  return {
    ...rest,
    enabled: patch.enabled ?? current.enabled,
    offVariant: mergeField(current.offVariant, patch.offVariant) ?? null,
    defaultVariant: mergeField(current.defaultVariant, patch.defaultVariant) ?? null,
    targets: mergeField(current.targets, patch.targets) ?? [],
    // A rule as sent becomes a TargetingRule here; validateFlag refuses it before it is written if it is not one.
    rules: rules.map(
      (rule) =>
        ({
          ...rule,
          id: rule.id ?? newId('rul'),
          segments: rule.segments ?? [],
          conditions: rule.conditions ?? [],
        }) as TargetingRule,
    ),
    ...(required === undefined ? {} : { prerequisites: required }),
    ...(rollout === undefined ? {} : { defaultRollout: rollout }),
    ...(jsonLogic === undefined ? {} : { targeting: jsonLogic }),
  };
}

/** `earlier` as the next version of `stored`, stamped `at`: identity kept, environments created since kept, deleted ones left out. */
export function restoredFlag(stored: Flag, earlier: Flag, at: string): Flag {
  const environments = Object.fromEntries(
    Object.entries(stored.environments).map(([key, config]) => [key, earlier.environments[key] ?? config]),
  );
  return {
    ...earlier,
    id: stored.id,
    projectId: stored.projectId,
    key: stored.key,
    type: stored.type,
    environments,
    version: stored.version + 1,
    createdAt: stored.createdAt,
    updatedAt: at,
  };
}

/** A new flag's configuration in `environment`: not served there while the gate would stop its author (`waiting`). */
export function initialIn(
  environment: string,
  waiting: ReadonlySet<string>,
  type: FlagType,
  variants: readonly Variant[],
): FlagEnvironment {
  const initial = initialFlagEnvironment(type, variants);
  return waiting.has(environment) ? { ...initial, unconfigured: true } : initial;
}
