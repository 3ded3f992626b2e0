import { isPlainObject } from '../../domain/json.ts';

/** RFC 7396 JSON merge patch: objects merge key by key, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** One field of a typed merge patch: absent keeps `current`, null removes it (undefined), a value replaces it. */
export const mergeField = <T>(current: T, value: T | null | undefined): T | undefined =>
  value === undefined ? current : (value ?? undefined);
