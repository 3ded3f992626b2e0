import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../domain/api-key.ts';
import type { ApiKeyService } from '../../services/api-key-service.ts';
import { problem, sendProblem } from '../problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on every /v1 and /ofrep request that gets past it. */
    principal?: Principal;
  }
}

/** The secret of `Authorization: Bearer <secret>`, or undefined when the header is absent or another scheme. */
export function bearerSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * First check of every API request (SPEC §5): a missing, malformed, unknown, revoked or expired
 * key is a 401 with `WWW-Authenticate: Bearer`, before anything else is looked at. Applies to
 * the routes of the (encapsulated) scope it is registered in.
 */
export function registerAuthentication(scope: FastifyInstance, apiKeys: ApiKeyService): void {
  scope.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const secret = bearerSecret(request);
    if (secret === undefined) {
      return sendProblem(
        reply,
        problem('unauthorized', 'Send the API key as "Authorization: Bearer <key>".'),
      );
    }
    const found = await apiKeys.authenticate(secret, new Date());
    if (found === undefined) {
      return sendProblem(reply, problem('unauthorized', 'The API key is unknown, revoked or expired.'));
    }
    request.principal = found.principal;
  });
}
