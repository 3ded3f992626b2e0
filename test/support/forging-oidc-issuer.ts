import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenID issuer whose token endpoint answers whatever ID token the test asks for: signed by
 * another key, for another audience, expired, with another nonce. The real provider
 * (oidc-provider) cannot be made to issue such tokens; this one exists to show that the relying
 * party refuses them. It can also be "down" (every connection dropped).
 */
export interface ForgingIssuer {
  readonly issuer: string;
  /** Claims to put in (or, as undefined, leave out of) the next ID tokens, over the defaults. */
  claims: Record<string, unknown>;
  /** Sign with a key the issuer does not publish. */
  foreignKey: boolean;
  /** Drop every connection, as a provider that is down. */
  down: boolean;
  /** The nonce of the last authorization request the test read (the default `nonce` claim). */
  nonce: string;
  close(): Promise<void>;
}

const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

function jwt(claims: Record<string, unknown>, key: KeyObject): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', kid: 'k1', typ: 'JWT' })}.${part(claims)}`;
  const signature = createSign('RSA-SHA256').update(input).sign(key).toString('base64url');
  return `${input}.${signature}`;
}

export async function startForgingIssuer(clientId: string): Promise<ForgingIssuer> {
  const published = keyPair();
  const foreign = keyPair();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state: ForgingIssuer = {
    issuer,
    claims: {},
    foreignKey: false,
    down: false,
    nonce: '',
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (response: import('node:http').ServerResponse, body: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  server.on('request', (request, response) => {
    if (state.down) {
      request.socket.destroy();
      return;
    }
    const path = new URL(request.url ?? '/', issuer).pathname;
    if (path === '/.well-known/openid-configuration') {
      return json(response, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (path === '/jwks') {
      return json(response, {
        keys: [{ ...published.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }],
      });
    }
    if (path === '/token') {
      request.resume();
      const now = Math.floor(Date.now() / 1000);
      const claims = Object.fromEntries(
        Object.entries({
          iss: issuer,
          sub: 'forged-subject',
          aud: clientId,
          iat: now,
          exp: now + 300,
          nonce: state.nonce,
          email: 'mallory@example.com',
          name: 'Mallory',
          groups: ['flag-admins'],
          ...state.claims,
        }).filter(([, value]) => value !== undefined),
      );
      const key = state.foreignKey ? foreign.privateKey : published.privateKey;
      return json(response, {
        access_token: 'forged-access-token',
        token_type: 'Bearer',
        expires_in: 300,
        id_token: jwt(claims, key),
      });
    }
    response.writeHead(404).end();
  });
  return state;
}
