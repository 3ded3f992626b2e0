import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Grant } from '../../access/access-rules.ts';
import type { RouteAccess } from '../route-access.ts';

// What the caller may do here, from the parsed body: the environments and key powers a body
// names (route-access.ts), checked once it is parsed and before it is validated (docs/product.md §5).

declare module 'fastify' {
  interface FastifyRequest {
    /** What admission's access check established (route-access.ts), for the use case to trust. */
    grant?: Grant;
  }
}

/** The environments (and key powers) named in the body: once it is parsed, before it is validated. */
export function bodyAuthorizationHook(access: RouteAccess) {
  const check = access.body;
  return function authorizeBody(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    const principal = request.principal;
    if (principal === undefined || check === undefined) {
      done();
      return;
    }
    try {
      check(principal, request.body, request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
