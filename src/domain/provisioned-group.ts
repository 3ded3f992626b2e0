/**
 * A group the organisation's identity provider pushes over SCIM (decision 1891). Its name is
 * what the roles claim would carry, so FLAGSTAFF_OIDC_ROLES maps it to a role like a claim value.
 */
export interface ProvisionedGroup {
  readonly id: string;
  /** Unique; compared exactly, as claim values are. */
  readonly displayName: string;
  /** The identity provider's id for the group; null when it sent none. */
  readonly externalId: string | null;
  /** The member accounts' ids, in id order. */
  readonly members: readonly string[];
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The most members one group holds: each write re-reads the role of every member it changes. */
export const GROUP_MEMBERS_MAX = 10_000;
