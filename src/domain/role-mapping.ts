import type { MappedRole } from './account.ts';
import { ROLES, type Role, roleRank } from './api-key.ts';

/**
 * Reads FLAGSTAFF_OIDC_ROLES: `value=role` or `value=role:project`, comma-separated
 * (`flag-admins=admin,shop-devs=editor:webshop`). Throws an Error saying what is wrong with
 * which entry; the caller names the variable.
 */
export function parseRoleMappings(raw: string): readonly MappedRole[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new Error('must map at least one claim value, e.g. "flag-admins=admin"');
  return Object.freeze(
    entries.map((entry): MappedRole => {
      const at = entry.lastIndexOf('=');
      const value = entry.slice(0, at).trim();
      const [role = '', project, extra] = entry
        .slice(at + 1)
        .split(':')
        .map((part) => part.trim());
      if (at <= 0 || value === '') throw new Error(`"${entry}" is not value=role or value=role:project`);
      if (!(ROLES as readonly string[]).includes(role)) {
        throw new Error(`"${entry}": the role must be one of ${ROLES.join(', ')}`);
      }
      if (extra !== undefined || project === '') {
        throw new Error(`"${entry}": after the role comes at most one ":project-key"`);
      }
      return Object.freeze({ value, role: role as Role, project: project ?? null });
    }),
  );
}

/** The mappings that apply to a person's claim values, in the order they were configured. */
export function matchingRoles(mappings: readonly MappedRole[], values: readonly string[]): MappedRole[] {
  const held = new Set(values);
  return mappings.filter((mapping) => held.has(mapping.value));
}

/**
 * The one role an account gets from its matching mappings: the highest role; between equal
 * roles, organisation-wide before a project; then the first configured. Undefined: none matched.
 */
export function highestRole(matched: readonly MappedRole[]): MappedRole | undefined {
  let best: MappedRole | undefined;
  for (const mapping of matched) {
    if (best === undefined) best = mapping;
    else {
      const byRank = roleRank(mapping.role) - roleRank(best.role);
      if (byRank > 0 || (byRank === 0 && mapping.project === null && best.project !== null)) best = mapping;
    }
  }
  return best;
}

/** A claim's values as strings: a list (groups), one string, or nothing usable. */
export function claimValues(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (Array.isArray(claim)) return claim.filter((value): value is string => typeof value === 'string');
  return [];
}
