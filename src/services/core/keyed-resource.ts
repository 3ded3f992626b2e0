import { newId } from '../../domain/ids.ts';

// What the keyed resources of a project (flags, segments, environments) and projects themselves
// share, beside the one write recipe of versioned-write.ts.

/** What a new keyed resource starts as: a new id (`prefix_…`), its key as name unless named, version 1. */
export function firstVersion(
  prefix: string,
  input: {
    readonly key: string;
    readonly name?: string | undefined;
    readonly description?: string | undefined;
  },
  at: string,
) {
  return {
    id: newId(prefix),
    key: input.key,
    name: input.name ?? input.key,
    description: input.description ?? '',
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The next version of a keyed resource under a merge patch of its name and description: null
 * puts the name back to the key and the description to empty; the caller merges its own fields.
 */
export function nextVersion<
  R extends {
    readonly key: string;
    readonly name: string;
    readonly description: string;
    readonly version: number;
  },
>(
  stored: R,
  patch: { readonly name?: string | null | undefined; readonly description?: string | null | undefined },
  at: string,
): R {
  return {
    ...stored,
    name: patch.name === undefined ? stored.name : (patch.name ?? stored.key),
    description: patch.description === undefined ? stored.description : (patch.description ?? ''),
    version: stored.version + 1,
    updatedAt: at,
  };
}

/** What a keyed resource of a project is to the audit log: its type, its key, its project's log. */
export const keyedInProject = (type: string) => ({
  type,
  key: (resource: { readonly key: string }) => resource.key,
  logOf: (resource: { readonly projectId: string }) => resource.projectId,
});

/** The 409 of a new resource whose key is another's in its project already. */
export const takenIn = (project: { readonly key: string }, type: string, key: string): string =>
  `${/^[aeiou]/.test(type) ? 'An' : 'A'} ${type} "${key}" already exists in project "${project.key}".`;

/**
 * The resource read by id when it is one of the project's, else `missing()` (the 404): a
 * resource of another project is not told apart from none.
 */
export function ofProject<R extends { readonly projectId: string }>(
  found: R | undefined,
  projectId: string,
  missing: () => Error,
): R {
  if (found === undefined || found.projectId !== projectId) throw missing();
  return found;
}
