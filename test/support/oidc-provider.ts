import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; this helper is its one user.
import Provider from 'oidc-provider';

/** A person the provider knows: signs in with `login` (any password), with these claims. */
export interface ProviderPerson {
  readonly email: string;
  readonly name: string;
  /** The `groups` claim; tests change it between sign-ins. */
  groups: string[];
}

export interface TestOidcProvider {
  /** The issuer URL, http://127.0.0.1:<port> */
  readonly issuer: string;
  /** People by login (which is also their `sub`). */
  readonly people: Map<string, ProviderPerson>;
  close(): Promise<void>;
}

/**
 * Where the provider puts the `groups` claim, as providers differ: in the ID token for the
 * `profile` scope (Entra ID, Keycloak's default mapper); in the ID token only for a `groups`
 * scope (Okta, Dex); only from UserInfo (an ID token with just `sub`, as conforming providers
 * issue beside an access token); or nowhere (Google).
 */
export type GroupsRelease = 'id-token' | 'groups-scope' | 'userinfo' | 'none';

const CLAIMS_OF_SCOPES: Record<GroupsRelease, Record<string, string[]>> = {
  'id-token': { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
  'groups-scope': {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
    groups: ['groups'],
  },
  userinfo: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
  none: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
};

export const CLIENT_ID = 'flagstaff';
export const CLIENT_SECRET = 'flagstaff-test-client-secret-0123456789';

/**
 * A real OpenID provider (`oidc-provider`, the certified Node implementation) in this process,
 * on 127.0.0.1 and an ephemeral port: one confidential client that must use PKCE, its development
 * login form (any password), consent taken as given (a first-party client), and the `groups`
 * claim where `groups` says.
 */
export async function startOidcProvider(
  redirectUri: () => string,
  groups: GroupsRelease = 'id-token',
): Promise<TestOidcProvider> {
  const people = new Map<string, ProviderPerson>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri()],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    claims: CLAIMS_OF_SCOPES[groups],
    scopes: [
      'openid',
      'offline_access',
      ...Object.keys(CLAIMS_OF_SCOPES[groups]).filter((s) => s !== 'openid'),
    ],
    // Unless groups come from UserInfo only, the claims of the requested scopes go into the ID
    // token, as Okta and Entra ID put groups there.
    conformIdTokenClaims: groups === 'userinfo',
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const person = people.get(id);
      if (person === undefined) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: person.email,
          email_verified: true,
          name: person.name,
          ...(groups === 'none' ? {} : { groups: [...person.groups] }),
        }),
      };
    },
    // A first-party client: no consent screen, every requested scope granted.
    async loadExistingGrant(ctx: {
      oidc: {
        client: { clientId: string };
        session: { accountId: string };
        params: { scope?: string };
        provider: { Grant: never };
      };
    }) {
      const Grant = ctx.oidc.provider.Grant as unknown as new (
        o: object,
      ) => {
        addOIDCScope(scope: string): void;
        addOIDCClaims(claims: string[]): void;
        save(): Promise<string>;
      };
      const grant = new Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      // Every scope the client asked for that this provider knows.
      grant.addOIDCScope(ctx.oidc.params.scope ?? 'openid');
      await grant.save();
      return grant;
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    people,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
