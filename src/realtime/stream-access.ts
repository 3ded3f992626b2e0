import type { AccessRule, Admission } from '../access/admission.ts';
import { type Caller, Refusal } from '../access/admission.ts';
import type { Bucket } from '../access/token-buckets.ts';
import type { Principal } from '../domain/api-key.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import { unauthorized } from '../domain/errors.ts';
import type { ServerSecret } from '../domain/server-secret.ts';
import { hasValidSignature, readStreamToken, type StreamClaims, signStreamToken } from './stream-token.ts';

/** Tokens are minted per hour, so every request within the hour gets the same URL (and ETag). */
const TOKEN_WINDOW_SECONDS = 3600;

/** A verified stream token: whose it is and until when the stream may stay open. */
export interface StreamGrant extends StreamClaims {
  readonly principal: Principal;
  /** Unix seconds: the token's expiry, or the key's when that comes first. */
  readonly endsAt: number;
  /** The key's evaluation bucket after the handshake took its token, for the RateLimit headers. */
  readonly bucket?: Bucket | undefined;
}

/**
 * Issues the signed, expiring tokens by which a stream URL authenticates itself (EventSource
 * cannot send headers; flagd sync has its own credential, docs/decisions/1771), and admits them.
 */
export class StreamAccess {
  readonly #admission: Admission;
  readonly #clock: () => number;
  /** Tokens are signed with a key derived from it and the API key's hash (docs/decisions/1880). */
  readonly #serverSecret: ServerSecret;

  /** Checks tokens against the keys in memory: a stream opens without asking the database. */
  constructor(admission: Admission, serverSecret: ServerSecret, clock: Clock = systemClock) {
    this.#admission = admission;
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

  /**
   * The grant behind a token presented from `address`, or why not: 401 when it is malformed,
   * tampered with, expired or its key revoked or expired; 403 when the key's scope no longer
   * covers it (it may have narrowed since the token was issued); 429 over the key's budget.
   */
  async admit(token: string, address: string): Promise<StreamGrant | Refusal> {
    const claims = readStreamToken(token);
    if (claims === undefined) return new Refusal(unauthorized('The stream token is malformed.'));
    if (claims.expiresAt <= this.#clock() / 1000) {
      return new Refusal(
        unauthorized('The stream token has expired: fetch the evaluations again for a new stream URL.'),
      );
    }
    const caller: Caller = { ip: address };
    const credential = {
      kind: 'stream' as const,
      id: claims.keyId,
      signedBy: (secretHash: string) =>
        hasValidSignature(token, this.#serverSecret.derive('stream-token', secretHash)),
    };
    // A handshake costs the key an evaluation (decision 1762): the stream's token stands for it.
    const rule: AccessRule = {
      role: 'evaluator',
      budget: 'evaluation',
      target: () => ({ kind: 'project-id', id: claims.projectId }),
      environments: () => [claims.environment],
    };
    const verdict = await this.#admission.admit(caller, credential, rule);
    if (verdict !== undefined) return verdict;
    const keyEndsAt = (caller.endsAt ?? Number.POSITIVE_INFINITY) / 1000;
    return {
      ...claims,
      principal: caller.principal as Principal,
      endsAt: Math.min(claims.expiresAt, keyEndsAt),
      bucket: caller.bucket,
    };
  }
}
