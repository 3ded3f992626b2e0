import { isDeepStrictEqual } from 'node:util';
import type { FieldChange } from '../../domain/change-request.ts';
import { flagNotFound } from '../../domain/errors.ts';
import type { Flag, Variant } from '../../domain/flag.ts';
import { isPlainObject } from '../../domain/json.ts';
import type {
  FlagStore,
  PendingChangeRole,
  ProjectStore,
  ReadOptions,
  ReleaseRole,
} from '../../storage/store.ts';
import { environmentsOfChanges } from '../core/field-changes.ts';
import { keyedInProject, ofProject } from '../core/keyed-resource.ts';
import type { AuditRoles, VersionedKind } from '../core/versioned-write.ts';

/**
 * The store roles flag use cases name: projects, flags and segments, the audit log, pending
 * changes, and release plans (a plan moves in the transaction of the flag write that is its step).
 */
export type FlagRoles = ProjectStore & FlagStore & AuditRoles & PendingChangeRole & ReleaseRole;

/** Flags as the one versioned write stores and audits them (flagd import writes them too). */
export const FLAGS: VersionedKind<Flag, FlagRoles> = {
  ...keyedInProject('flag'),
  insert: (tx, flag) => tx.insertFlag(flag),
  update: (tx, flag, expectedVersion) => tx.updateFlag(flag, expectedVersion),
  remove: (tx, flag) => tx.deleteFlag(flag.id),
  gone: (flag) => flagNotFound(`No flag with id "${flag.id}".`),
};

/**
 * Whether `next` (a patch's or a written flag's variants) changes what an existing variant
 * serves: a value replaced, or the variant removed. Variants are flag-wide, so that changes every
 * environment serving them.
 */
export function changesVariantValues(current: readonly Variant[], next: unknown): boolean {
  if (!Array.isArray(next)) return false;
  const values = new Map(next.filter(isPlainObject).map((variant) => [variant.key, variant.value] as const));
  return current.some(
    (variant) => !values.has(variant.key) || !isDeepStrictEqual(values.get(variant.key), variant.value),
  );
}

/**
 * Whether a change of a flag's own field reaches every environment: what a variant serves
 * (variants are flag-wide, decision 1003), archiving (an archived flag is served to no one) and
 * metadata (OFREP results and flagd documents carry it, decision 1851).
 */
export const isFlagWideChange = (current: Flag, change: FieldChange): boolean =>
  change.path === '/archived' ||
  change.path === '/metadata' ||
  (change.path === '/variants' && changesVariantValues(current.variants, change.after));

/** The environments whose evaluation a flag's changes reach: those they configure, all of the flag's for a flag-wide one. */
export function environmentsChangedBy(current: Flag, changes: readonly FieldChange[]): string[] {
  return changes.some((change) => isFlagWideChange(current, change))
    ? Object.keys(current.environments)
    : environmentsOfChanges(changes);
}

/**
 * The stored flag, when it is one of the project's (404 otherwise); `forUpdate` inside a write's
 * transaction, so a concurrent write without If-Match waits its turn instead of failing.
 */
export async function flagOfProject(store: FlagStore, projectId: string, id: string, options?: ReadOptions) {
  return ofProject(await store.findFlagById(id, options), projectId, () =>
    flagNotFound(`No flag with id "${id}".`),
  );
}
