import type { MappedRole } from './account.ts';

/** Single sign-on's settings (FLAGSTAFF_OIDC_* and FLAGSTAFF_PUBLIC_URL; decision 1720). */
export interface OidcSettings {
  /** FLAGSTAFF_OIDC_ISSUER */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the provider sends people back: `<FLAGSTAFF_PUBLIC_URL>/v1/auth/oidc/callback`. */
  readonly redirectUri: string;
  /** FLAGSTAFF_OIDC_LABEL: "Sign in with <label>", default SSO. */
  readonly label: string;
  /** FLAGSTAFF_OIDC_ROLES_CLAIM, default groups. */
  readonly rolesClaim: string;
  /** FLAGSTAFF_OIDC_ROLES, parsed. */
  readonly roles: readonly MappedRole[];
  /**
   * FLAGSTAFF_OIDC_SCOPES, space-separated, always with `openid`: default `openid email profile`.
   * Okta and Dex release groups only for a `groups` scope.
   */
  readonly scopes?: readonly string[];
}

export const DEFAULT_OIDC_SCOPES: readonly string[] = ['openid', 'email', 'profile'];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether an identity provider may be reached over plain http: only on this machine (a test or
 * local provider), never over a network (decision 1720).
 */
export const allowsPlainHttp = (issuer: URL): boolean =>
  issuer.protocol === 'http:' && LOOPBACK_HOSTS.has(issuer.hostname);
