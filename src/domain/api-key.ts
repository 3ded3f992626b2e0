/** Roles in order of power: each may do everything the one before it may (docs/product.md §2). */
export const ROLES = ['evaluator', 'viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const roleRank = (role: Role): number => ROLES.indexOf(role);

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
