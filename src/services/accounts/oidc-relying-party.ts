import type * as OpenIdClient from 'openid-client';
import { DomainError } from '../../domain/errors.ts';
import { allowsPlainHttp, DEFAULT_OIDC_SCOPES } from '../../domain/oidc-issuer.ts';

export interface RelyingPartyOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  /** The scopes asked for; default DEFAULT_OIDC_SCOPES. */
  readonly scopes?: readonly string[];
  /** How long one request to the provider may take. Default 10 s. */
  readonly timeoutMs?: number;
}

/** The checks a callback must pass: what this server sent with the person to the provider. */
export interface SignInChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** What the relying party hands out to start a sign-in; kept (hashed where it can be) until the callback. */
export interface SignInStart extends SignInChecks {
  readonly url: URL;
}

/** The provider could not be reached (or answered 5xx): retried at the next sign-in. */
export const providerUnavailable = () =>
  new DomainError(
    'identity_provider_unavailable',
    'The identity provider cannot be reached right now. Try again in a moment.',
  );

/** The callback did not prove who the person is; `reason` is for the log, never a token. */
export class SignInNotVerified extends DomainError {
  readonly reason: string;
  constructor(reason: string) {
    super(
      'validation_failed',
      'The identity provider’s answer could not be verified. Start the sign-in again.',
    );
    this.reason = reason;
  }
}

/**
 * The OpenID Connect relying party, done by `openid-client` (certified): discovery, the
 * authorization URL with PKCE (S256), state and nonce, and the code exchange with every ID-token
 * check (signature against the provider's published keys, issuer, audience, expiry, nonce). Discovery happens at the first sign-in and
 * is retried at the next one when the provider was down, so a provider that is down never stops
 * the server from starting.
 */
type Oidc = typeof OpenIdClient;

/**
 * The library, loaded when a sign-in first needs it: most nodes never configure single sign-on,
 * and loading it costs 2 MB of resident memory (decision 2093).
 */
const openIdClient = (): Promise<Oidc> => import('openid-client');

export class OidcRelyingParty {
  readonly #options: RelyingPartyOptions;
  #configuration: Promise<OpenIdClient.Configuration> | undefined;

  constructor(options: RelyingPartyOptions) {
    this.#options = options;
  }

  /** Builds where to send the person, with fresh state, nonce and PKCE verifier. */
  async start(): Promise<SignInStart> {
    const configuration = await this.#discovered();
    const oidc = await openIdClient();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.#options.redirectUri,
      scope: (this.#options.scopes ?? DEFAULT_OIDC_SCOPES).join(' '),
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  /**
   * Exchanges the callback's code and checks the ID token; answers its claims, merged with the
   * UserInfo endpoint's when the token lacks `wanted` ones (providers differ in what they put there).
   */
  async finish(
    callback: URL,
    checks: SignInChecks,
    wanted: readonly string[],
  ): Promise<OpenIdClient.IDToken> {
    const configuration = await this.#discovered();
    const oidc = await openIdClient();
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new SignInNotVerified('no ID token');
      if (wanted.every((name) => claims[name] !== undefined)) return claims;
      if (configuration.serverMetadata().userinfo_endpoint === undefined) return claims;
      const userInfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      return { ...userInfo, ...claims };
    } catch (error) {
      throw classify(error, oidc);
    }
  }

  #discovered(): Promise<OpenIdClient.Configuration> {
    if (this.#configuration === undefined) {
      const discovery = this.#discover();
      this.#configuration = discovery;
      // A failed discovery is forgotten, so the next sign-in tries again.
      discovery.catch(() => {
        if (this.#configuration === discovery) this.#configuration = undefined;
      });
    }
    return this.#configuration.catch(async (error: unknown) => {
      throw classify(error, await openIdClient());
    });
  }

  async #discover(): Promise<OpenIdClient.Configuration> {
    const oidc = await openIdClient();
    const { issuer, clientId, clientSecret, timeoutMs = 10_000 } = this.#options;
    const server = new URL(issuer);
    return oidc.discovery(server, clientId, clientSecret, undefined, {
      timeout: timeoutMs / 1000,
      // The ID token's signature is checked against the provider's keys, not left to TLS alone
      // (the library's default for tokens from the token endpoint): decision 1720.
      execute: [
        oidc.enableNonRepudiationChecks,
        ...(allowsPlainHttp(server) ? [oidc.allowInsecureRequests] : []),
      ],
    });
  }
}

/** A provider that cannot be reached, or a callback that does not verify. */
function classify(error: unknown, oidc: Oidc): DomainError {
  if (error instanceof DomainError) return error;
  const coded = error as { code?: unknown; cause?: unknown; message?: unknown };
  // `fetch failed` (refused, reset, DNS) is a TypeError without a code; the library's own argument errors carry one.
  if (error instanceof TypeError && coded.code === undefined) return providerUnavailable();
  if (error instanceof oidc.ClientError) {
    if (error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT') return providerUnavailable();
    if (coded.cause instanceof Response && coded.cause.status >= 500) return providerUnavailable();
  }
  // The library's message and code name the failed check ("unexpected JWT claim value"), never a token.
  return new SignInNotVerified(`${String(coded.code ?? 'error')}: ${String(coded.message ?? error)}`);
}
