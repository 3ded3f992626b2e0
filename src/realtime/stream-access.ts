import type { Principal } from '../domain/api-key.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import { unauthorized } from '../domain/errors.ts';
import type { ServerSecret } from '../domain/server-secret.ts';
import type { KeyRegistry } from '../plane/key-registry.ts';
import { authorize } from '../services/core/access.ts';
import { hasValidSignature, readStreamToken, type StreamClaims, signStreamToken } from './stream-token.ts';

/** Tokens are minted per hour, so every request within the hour gets the same URL (and ETag). */
const TOKEN_WINDOW_SECONDS = 3600;

/** A verified stream token: whose it is and until when the stream may stay open. */
export interface StreamGrant extends StreamClaims {
  readonly principal: Principal;
  /** Unix seconds: the token's expiry, or the key's when that comes first. */
  readonly endsAt: number;
}

const refused = unauthorized;

/**
 * Issues and checks the signed, expiring tokens by which a stream URL authenticates itself
 * (EventSource cannot send headers; flagd sync has its own credential, docs/decisions/1771).
 */
export class StreamAccess {
  readonly #keys: KeyRegistry;
  readonly #clock: () => number;
  /** Tokens are signed with a key derived from it and the API key's hash (docs/decisions/1880). */
  readonly #serverSecret: ServerSecret;

  /** Checks tokens against the keys in memory: a stream opens without asking the database. */
  constructor(keys: KeyRegistry, serverSecret: ServerSecret, clock: Clock = systemClock) {
    this.#keys = keys;
    this.#serverSecret = serverSecret;
    this.#clock = clock;
  }

  /**
   * A token for the key whose secret hashes to `secretHash`, valid one to two hours: the same
   * for every request within a clock hour, so responses that carry it stay cacheable.
   */
  issue(keyId: string, secretHash: string, projectId: string, environment: string): string {
    const window = Math.floor(this.#clock() / 1000 / TOKEN_WINDOW_SECONDS);
    const expiresAt = (window + 2) * TOKEN_WINDOW_SECONDS;
    const signingKey = this.#serverSecret.derive('stream-token', secretHash);
    return signStreamToken({ keyId, projectId, environment, expiresAt }, signingKey);
  }

  /** The grant behind a token; `unauthorized` when it is malformed, tampered with, expired or its key revoked. */
  async verify(token: string): Promise<StreamGrant> {
    const claims = readStreamToken(token);
    if (claims === undefined) throw refused('The stream token is malformed.');
    const now = this.#clock() / 1000;
    if (claims.expiresAt <= now) {
      throw refused('The stream token has expired: fetch the evaluations again for a new stream URL.');
    }
    if (!this.#keys.loaded) await this.#keys.sync();
    // Revoked keys are not in the registry: their tokens fail here like forged ones.
    const key = this.#keys.findById(claims.keyId);
    if (
      key === undefined ||
      !hasValidSignature(token, this.#serverSecret.derive('stream-token', key.secretHash))
    ) {
      throw refused('The stream token is not valid, or its API key was revoked.');
    }
    const keyExpiresAt = key.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(key.expiresAt) / 1000;
    if (keyExpiresAt <= now) throw refused('The API key of this stream token has expired.');
    const principal = key.principal;
    // The key's scope may have narrowed since the token was issued.
    authorize(principal, claims.projectId, 'evaluator', claims.environment);
    return { ...claims, principal, endsAt: Math.min(claims.expiresAt, keyExpiresAt) };
  }
}
