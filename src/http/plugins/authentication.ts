import type { FastifyRequest } from 'fastify';
import type { Credential } from '../../access/admission.ts';
import type { Principal } from '../../domain/api-key.ts';
import { syncCredentialKeyId } from '../../plane/sync-credential.ts';
import { hashSecret } from '../../services/core/secrets.ts';

// Which credentials a request carries, read from its headers for admission (access/admission.ts)
// to check. The guard (guard.ts) reads them first on every route that is not public.

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by admission on every /v1 and /ofrep request that gets past it. */
    principal?: Principal;
    /** Set by the guard when a flagd sync credential admitted the request (route-access.ts `syncScope`). */
    admittedBySyncCredential?: true;
  }
}

/**
 * One kind of credential a request may carry. `credential` reads it without I/O, named by a
 * hash (never the secret itself); undefined when the request carries none, so the next
 * authenticator is tried.
 */
export interface Authenticator {
  credential(request: FastifyRequest): Credential | undefined;
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
 * client sends the same header on every request of a kept-alive connection, so the credential
 * of the header the connection sent last is kept with the connection, and a repeat costs a
 * string comparison instead of a SHA-256 and an object (decision 0207). Revocation and expiry
 * are still checked on every request: only the hash is remembered, never whether it was valid.
 */
export function apiKeyAuthenticator(): Authenticator {
  const lastHashed = new WeakMap<object, { readonly header: string; readonly credential: Credential }>();
  return {
    credential(request) {
      const header = request.headers.authorization;
      if (header === undefined) return undefined;
      const connection = request.raw.socket;
      const last = lastHashed.get(connection);
      if (last?.header === header) return last.credential;
      const secret = bearerSecret(request);
      if (secret === undefined) return undefined;
      const credential: Credential = { kind: 'api-key', id: hashSecret(secret) };
      lastHashed.set(connection, { header, credential });
      return credential;
    },
  };
}

/**
 * `Authorization: Bearer fsc.…`: a flagd sync credential, checked against `scope` (the route's
 * environment); undefined for any other header, so the request's other credentials are read.
 */
export function syncCredentialOf(request: FastifyRequest, scope: string): Credential | undefined {
  const secret = bearerSecret(request);
  if (secret === undefined || syncCredentialKeyId(secret) === undefined) return undefined;
  return { kind: 'sync', id: hashSecret(secret), secret, scope };
}

const NO_CREDENTIAL: Credential = {
  kind: 'none',
  rejection: 'Send the API key as "Authorization: Bearer <key>".',
};

/** The first credential one of `authenticators` finds in the request, or the lack of one. */
export function credentialOf(authenticators: readonly Authenticator[], request: FastifyRequest): Credential {
  for (const authenticator of authenticators) {
    const credential = authenticator.credential(request);
    if (credential !== undefined) return credential;
  }
  return NO_CREDENTIAL;
}
