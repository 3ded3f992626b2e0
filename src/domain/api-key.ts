/** Roles in order of power: each may do everything the one before it may (docs/product.md §2). */
export const ROLES = ['evaluator', 'viewer', 'editor', 'admin'] as const;
export type LadderRole = (typeof ROLES)[number];

/**
 * An edge's key (SPEC §14, decision 1980): off the ladder. It reads its scope's snapshots and
 * key hashes and sends counts and events upstream, nothing else: below every rung, and the
 * edge routes ask for it by name, so no other role reaches them.
 */
export const EDGE_ROLE = 'edge';
export type Role = LadderRole | typeof EDGE_ROLE;

/** What an API key may be given: an edge's role, or one of the ladder's. */
export const KEY_ROLES = [...ROLES, EDGE_ROLE] as const;

/** The role's rung; an edge key's is below the first, so every ladder check refuses it. */
export const roleRank = (role: Role): number => (ROLES as readonly string[]).indexOf(role);

export interface ApiKey {
  readonly id: string;
  readonly name: string;
  /** The first characters of the secret, shown so people can tell keys apart. */
  readonly prefix: string;
  /** null: organisation-wide. */
  readonly projectId: string | null;
  readonly role: Role;
  /** Environment keys; null: every environment of the project. */
  readonly environments: readonly string[] | null;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** The id of the operator at the command line (whoever holds the database URL): a person with no account. */
export const COMMAND_LINE_OPERATOR = 'cli';

/** Who is making a request, after authentication. */
export interface Principal {
  /** `release_plan`: a plan acting for the people who started it (services/releases). */
  readonly type: 'api_key' | 'user' | 'release_plan';
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly projectId: string | null;
  readonly environments: readonly string[] | null;
}
