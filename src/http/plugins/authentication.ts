import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../domain/api-key.ts';
import type { ApiKeyService } from '../../services/access/api-key-service.ts';
import type { FailedAuthentications } from '../../services/access/failed-authentications.ts';
import { hashSecret } from '../../services/core/secrets.ts';
import { type Problem, problem, sendProblem } from '../problem.ts';
import { type Bucket, sendRateLimited, setRateLimitHeaders } from './rate-limit.ts';

// Who is calling: the credentials a request carries, checked against the node's keys and
// sessions, with failures limited per client address (docs/product.md §5). The guard
// (guard.ts) runs it first on every route that is not public.

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on every /v1 and /ofrep request that gets past it. */
    principal?: Principal;
  }
}

/**
 * One way to find who is calling. `credential` reads the request's credentials of this kind
 * without I/O and names them by a hash (never the secret itself); undefined when the request
 * carries none, so the next authenticator is tried. `verify` finds the principal, or answers
 * a problem (401 unknown or expired; 403 e.g. a session used from another origin).
 */
export interface Authenticator {
  credential(request: FastifyRequest): string | undefined;
  verify(
    request: FastifyRequest,
    credential: string,
  ): Principal | Problem | undefined | Promise<Principal | Problem | undefined>;
  /** The detail of the 401 when `verify` finds nobody. */
  readonly rejection: string;
}

/** The secret of `Authorization: Bearer <secret>`, or undefined when the header is absent or another scheme. */
export function bearerSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * `Authorization: Bearer fsk_…`, looked up in the node's in-memory keys (decision 0201). A
 * client sends the same header on every request of a kept-alive connection, so the hash of
 * the header the connection sent last is kept with the connection, and a repeat costs a string
 * comparison instead of a SHA-256 (decision 0207). Revocation and expiry are still checked on
 * every request: only the hash is remembered, never whether it was valid.
 */
export function apiKeyAuthenticator(apiKeys: ApiKeyService): Authenticator {
  const lastHashed = new WeakMap<object, { readonly header: string; readonly secretHash: string }>();
  return {
    credential(request) {
      const header = request.headers.authorization;
      if (header === undefined) return undefined;
      const connection = request.raw.socket;
      const last = lastHashed.get(connection);
      if (last?.header === header) return last.secretHash;
      const secret = bearerSecret(request);
      if (secret === undefined) return undefined;
      const secretHash = hashSecret(secret);
      lastHashed.set(connection, { header, secretHash });
      return secretHash;
    },
    verify: (_request, secretHash) => apiKeys.principalFor(secretHash),
    rejection: 'The API key is unknown, revoked or expired.',
  };
}

/** Finds the principal (true), or answers 401/403/429 (false). */
export type Authentication = (request: FastifyRequest, reply: FastifyReply) => boolean | Promise<boolean>;

export function authentication(
  authenticators: readonly Authenticator[],
  failedAuthentications: FailedAuthentications,
): Authentication {
  const failures = failedAuthentications.buckets;

  const tooManyFailures = (reply: FastifyReply, bucket: Bucket): false => {
    sendRateLimited(reply, failures, bucket, 'Too many failed authentications from this address.');
    return false;
  };

  /** A 401, or a 429 once the client address has used up its failure budget. */
  const fail = (request: FastifyRequest, reply: FastifyReply, detail: string): false => {
    const bucket = failedAuthentications.failed(request.ip);
    setRateLimitHeaders(reply, failures, bucket);
    // Never the credential itself, nor its hash: the reason and the address are enough.
    request.log.debug({ address: request.ip, reason: detail }, 'authentication failed');
    if (!bucket.allowed) return tooManyFailures(reply, bucket);
    sendProblem(reply, problem('unauthorized', detail));
    return false;
  };

  /** What to do with what an authenticator's `verify` found. */
  const settle = (
    request: FastifyRequest,
    reply: FastifyReply,
    authenticator: Authenticator,
    credential: string,
    found: Principal | Problem | undefined,
  ): boolean => {
    if (found === undefined) return fail(request, reply, authenticator.rejection);
    if ('status' in found) {
      if (found.status === 401) return fail(request, reply, found.detail);
      sendProblem(reply, found);
      return false;
    }
    failedAuthentications.succeeded(credential);
    request.principal = found;
    return true;
  };

  return function authenticate(request, reply) {
    for (const authenticator of authenticators) {
      const credential = authenticator.credential(request);
      if (credential === undefined) continue;
      // An address over its failure budget gets no answer for a credential it has not proven,
      // so guessing stays slow; credentials that worked recently still pass (clients behind one
      // proxy), without reading the address (a kept-alive client's every request).
      const overBudget = failedAuthentications.trusts(credential)
        ? undefined
        : failedAuthentications.refuses(request.ip, credential);
      if (overBudget !== undefined) {
        setRateLimitHeaders(reply, failures, overBudget);
        return tooManyFailures(reply, overBudget);
      }
      // API keys answer synchronously from memory: no promise, unless a lookup is still pending.
      const verified = authenticator.verify(request, credential);
      if (!(verified instanceof Promise)) return settle(request, reply, authenticator, credential, verified);
      return verified.then((found) => settle(request, reply, authenticator, credential, found));
    }
    return fail(request, reply, 'Send the API key as "Authorization: Bearer <key>".');
  };
}
