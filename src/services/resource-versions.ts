import { newId } from './ids.ts';
import { now } from './project-access.ts';

/** What every keyed resource is created with: a fresh id, a name that defaults to its key, version 1. */
export function firstVersion(
  idPrefix: string,
  input: { key: string; name?: string | undefined; description?: string | undefined },
  at: string = now(),
) {
  return {
    id: newId(idPrefix),
    key: input.key,
    name: input.name ?? input.key,
    description: input.description ?? '',
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
}

/** A stored resource with `changes` made: its next version, updated now. */
export const nextVersion = <T extends { version: number; updatedAt: string }>(
  stored: T,
  changes: Partial<T>,
): T => ({ ...stored, ...changes, version: stored.version + 1, updatedAt: now() });

/** A merge patch of the name and description every keyed resource has; a null description clears it. */
export const patchedNaming = (
  stored: { name: string; description: string },
  patch: { name?: string | undefined; description?: string | null | undefined },
) => ({
  name: patch.name ?? stored.name,
  description: patch.description === null ? '' : (patch.description ?? stored.description),
});
