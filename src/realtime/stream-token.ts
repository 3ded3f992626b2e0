import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a stream token grants: change notifications of one environment, to one key, until `expiresAt`. */
export interface StreamClaims {
  readonly keyId: string;
  readonly projectId: string;
  readonly environment: string;
  /** Unix seconds. */
  readonly expiresAt: number;
}

const sign = (payload: string, signingKey: string) =>
  createHmac('sha256', signingKey).update(payload).digest('base64url');

/**
 * `<base64url(JSON claims)>.<base64url(HMAC-SHA256)>`. The signing key is derived from the
 * server secret and the API key's secret hash (decision 1880), which every node holds and no
 * client or backup does: the token never carries the secret, and a revoked or deleted key's
 * tokens die with it (docs/decisions/0900).
 */
export function signStreamToken(claims: StreamClaims, signingKey: string): string {
  const payload = Buffer.from(
    JSON.stringify([claims.keyId, claims.projectId, claims.environment, claims.expiresAt]),
  ).toString('base64url');
  return `${payload}.${sign(payload, signingKey)}`;
}

/** The claims a token states, unverified (to find the key that must verify it); undefined if malformed. */
export function readStreamToken(token: string): StreamClaims | undefined {
  const [payload, signature, ...rest] = token.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(claims) || claims.length !== 4) return undefined;
    const [keyId, projectId, environment, expiresAt] = claims as unknown[];
    if (
      typeof keyId !== 'string' ||
      typeof projectId !== 'string' ||
      typeof environment !== 'string' ||
      typeof expiresAt !== 'number' ||
      !Number.isInteger(expiresAt)
    ) {
      return undefined;
    }
    return { keyId, projectId, environment, expiresAt };
  } catch {
    return undefined;
  }
}

/** Whether `token` was signed with `signingKey` (constant time). */
export function hasValidSignature(token: string, signingKey: string): boolean {
  const dot = token.indexOf('.');
  const expected = Buffer.from(sign(token.slice(0, dot), signingKey));
  const actual = Buffer.from(token.slice(dot + 1));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
