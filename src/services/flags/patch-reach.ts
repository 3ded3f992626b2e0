import { ENVIRONMENT_FIELDS, FLAG_FIELDS } from '../../domain/flag.ts';
import { isPlainObject } from '../../domain/json.ts';

/** Where a flag merge patch reaches: the environments whose fields it sets, and whether it sets flag-wide fields. */
export interface PatchReach {
  readonly environments: readonly string[];
  /** Flag fields (name, variants, archived, …) belong to every environment. */
  readonly flagWide: boolean;
}

const FLAG_WIDE: ReadonlySet<string> = new Set(FLAG_FIELDS);
const PER_ENVIRONMENT: ReadonlySet<string> = new Set(ENVIRONMENT_FIELDS);

/**
 * The one answer to "which environments does this flag patch touch" (the README's PATCH of a flag):
 * top-level environment fields are `environment`'s, `environments: { <key>: … }` names others.
 * It reads unvalidated input as well, since access is checked before validation (decision 0203).
 */
export function patchReach(patch: unknown, environment: string): PatchReach {
  if (!isPlainObject(patch)) return { environments: [], flagWide: false };
  const environments = new Set<string>();
  let flagWide = false;
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (FLAG_WIDE.has(field)) flagWide = true;
    if (PER_ENVIRONMENT.has(field)) environments.add(environment);
    if (field === 'environments' && isPlainObject(value))
      for (const key of Object.keys(value)) environments.add(key);
  }
  return { environments: [...environments], flagWide };
}

/** The environments a key must cover to make the patch: all of them for a flag-wide field. */
export const accessScope = (reach: PatchReach): readonly string[] | 'all' =>
  reach.flagWide ? 'all' : reach.environments;
