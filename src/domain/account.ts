import type { Role } from './api-key.ts';

/** A person who signs in to the dashboard (docs/product.md §7). Roles and scope work as for API keys. */
export interface Account {
  readonly id: string;
  /** Lower-cased; unique in the installation. */
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  /** null: organisation-wide. */
  readonly projectId: string | null;
  readonly createdAt: string;
  readonly lastLoginAt: string | null;
  /** Moves on every update (compare-and-set, as for every other resource). */
  readonly version: number;
  /** false: deactivated (by SCIM): no session works and no sign-in is accepted (decision 1721). */
  readonly active: boolean;
  /** Set once the person has signed in through the identity provider (decision 1720). */
  readonly sso: AccountSso | null;
  /** The identity provider's id for a person it provisioned over SCIM; null otherwise. */
  readonly externalId: string | null;
}

/** How an account signs in through the organisation's identity provider. */
export interface AccountSso {
  /** The account is bound to (issuer, subject), never to its email. */
  readonly issuer: string;
  readonly subject: string;
  /** The mapped claim values of the last sign-in, which gave the account its role. */
  readonly roles: readonly MappedRole[];
}

/** One claim value and the role it maps to (FLAGSTAFF_OIDC_ROLES). `project`: a project key, null organisation-wide. */
export interface MappedRole {
  readonly value: string;
  readonly role: Role;
  readonly project: string | null;
}

/**
 * A one-time link to create an account: sent by an admin, or printed on first start to create
 * the first admin (then `email` is null and the person chooses it).
 */
export interface Invitation {
  readonly id: string;
  /** null: whoever holds the link chooses the email (the first-start setup link). */
  readonly email: string | null;
  readonly role: Role;
  readonly projectId: string | null;
  readonly invitedBy: {
    readonly type: 'api_key' | 'user' | 'release_plan' | 'system';
    readonly id: string;
    readonly name: string;
  };
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly acceptedAt: string | null;
}

/**
 * A one-time link an admin creates so someone can choose a new password (no email is sent:
 * the admin passes the link on). Only a hash of its token is stored.
 */
export interface PasswordReset {
  readonly id: string;
  readonly accountId: string;
  readonly createdBy: Invitation['invitedBy'];
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly usedAt: string | null;
}

/** A signed-in browser. Only a hash of its cookie's token is stored. */
export interface Session {
  readonly id: string;
  readonly accountId: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';
/** The longest email anywhere in the API (RFC 5321's path limit, as every Email schema has it). */
export const EMAIL_MAX = 320;
/** The longest identity provider id (SCIM externalId): Okta's are 20 characters, Entra ID's GUIDs 36. */
export const EXTERNAL_ID_MAX = 256;

/** What a new account has until SSO or SCIM say otherwise: active, bound to no identity provider. */
export const LOCAL_ACCOUNT = Object.freeze({ active: true, sso: null, externalId: null });
