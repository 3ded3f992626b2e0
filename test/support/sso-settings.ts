import type { OidcSettings } from '../../src/domain/oidc-issuer.ts';
import { parseRoleMappings } from '../../src/domain/role-mapping.ts';
import { CLIENT_ID, CLIENT_SECRET, type TestOidcProvider } from './oidc-provider.ts';

export interface TestSsoOptions {
  /** Read when a sign-in starts: a provider's address is known once it listens. */
  readonly issuer: () => string;
  readonly clientId: string;
  readonly clientSecret?: string;
  /** The callback the provider sends people back to; read when a sign-in starts, as the server's address. */
  readonly redirectUri: () => string;
  /** FLAGSTAFF_OIDC_ROLES as written (`flag-admins=admin,support=viewer`). */
  readonly roles: string;
  readonly scopes?: readonly string[] | undefined;
}

/** Single sign-on as the tests configure it: "Sign in with Acme ID", roles from the `groups` claim. */
export function testSsoSettings(options: TestSsoOptions): OidcSettings {
  return {
    get issuer() {
      return options.issuer();
    },
    clientId: options.clientId,
    clientSecret: options.clientSecret ?? 'client-secret-0123456789',
    get redirectUri() {
      return options.redirectUri();
    },
    label: 'Acme ID',
    rolesClaim: 'groups',
    roles: parseRoleMappings(options.roles),
    ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
  };
}

/** Single sign-on through the test OpenID provider (oidc-provider.ts), started after the server. */
export const providerSsoSettings = (
  provider: () => TestOidcProvider,
  redirectUri: () => string,
  roles: string,
  scopes?: readonly string[],
): OidcSettings =>
  testSsoSettings({
    issuer: () => provider().issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri,
    roles,
    scopes,
  });
