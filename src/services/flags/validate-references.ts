import { conflict, validationFailed } from '../../domain/errors.ts';
import { type Flag, segmentsNamedByFlag } from '../../domain/flag.ts';
import type { FlagStore } from '../../storage/store.ts';
import { validateFlag } from './validate-flag.ts';
import { dependantsOf, requiredVariantsKept, validatePrerequisites } from './validate-prerequisites.ts';

/**
 * Refuses a flag whose configuration names environments or segments its project lacks. Only
 * the segments the flag names are read, and they stay locked until the write commits, so a
 * concurrent delete of one of them waits and then sees this flag using it.
 */
export async function validateReferences(
  store: FlagStore,
  flag: Flag,
  environmentKeys: ReadonlySet<string>,
  previous?: Flag,
): Promise<void> {
  const segmentKeys = await store.existingSegmentKeys(flag.projectId, segmentsNamedByFlag(flag));
  // JsonLogic targeting is checked where it changes (validateFlag): imported targeting may not compile.
  const errors = validateFlag(flag, environmentKeys, segmentKeys, previous);
  // Other flags are read only when prerequisites are involved, and only those involved (never
  // the whole project: a write costs the same in a project of 100 flags or of 5,000): the flags
  // this one requires, transitively (for cycles), and those that require it when it changes variants.
  if (hasPrerequisites(flag)) errors.push(...validatePrerequisites(flag, await requiredFlags(store, flag)));
  if (previous !== undefined && previous.variants !== flag.variants) {
    errors.push(...requiredVariantsKept(flag, await store.flagsNaming(flag.projectId, flag.key)));
  }
  if (errors.length > 0) throw validationFailed('The flag is not valid.', errors);
}

/** The flags `flag` requires in any environment, and those they require, and so on, by key. */
async function requiredFlags(store: FlagStore, flag: Flag): Promise<Map<string, Flag>> {
  const found = new Map<string, Flag>();
  const named = (f: Flag) =>
    Object.values(f.environments).flatMap((config) => (config.prerequisites ?? []).map((p) => p.flag));
  let next = new Set(named(flag));
  while (next.size > 0) {
    const keys = [...next].filter((key) => key !== flag.key && !found.has(key));
    next = new Set();
    for (const required of await store.flagsByKeys(flag.projectId, keys)) {
      found.set(required.key, required);
      for (const key of named(required)) if (!found.has(key)) next.add(key);
    }
  }
  return found;
}

const hasPrerequisites = (flag: Flag) =>
  Object.values(flag.environments).some((config) => (config.prerequisites?.length ?? 0) > 0);

/** Refuses to delete or archive a flag that live flags still require (docs/product.md §10). */
export async function refuseIfRequired(
  store: FlagStore,
  flag: Flag,
  becoming: 'deleted' | 'archived',
): Promise<void> {
  const live = (await store.flagsNaming(flag.projectId, flag.key)).filter((f) => !f.archived);
  const dependants = dependantsOf(flag.key, live);
  if (dependants.length > 0) {
    throw conflict(
      `Flag "${flag.key}" cannot be ${becoming}: it is a prerequisite of ${dependants.map((k) => `"${k}"`).join(', ')}.`,
    );
  }
}
