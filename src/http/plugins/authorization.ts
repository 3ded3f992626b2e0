import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AccessChecks, Grant } from '../../services/core/access.ts';
import type { RouteAccess } from '../route-access.ts';
import { nulInPathOrQuery } from '../validation.ts';

// What the caller may do here: the role, project and environments a route's access names
// (route-access.ts), checked before the request is validated (docs/product.md §5).

declare module 'fastify' {
  interface FastifyRequest {
    /** What the route's access check established (route-access.ts), for the use case to trust. */
    grant?: Grant;
  }
}

/** Establishes the request's grant, then `done`; or `done(error)` with the 403/404 to answer. */
export type Authorization = (request: FastifyRequest, done: HookHandlerDoneFunction) => void;

/**
 * 403 before the request is validated: the role, the project (looked up only when a project key
 * names a project by key or a resource by id) and the environments named in the path or query.
 */
export function authorization(checks: AccessChecks, access: RouteAccess): Authorization {
  return function authorize(request, done) {
    const principal = request.principal;
    if (principal === undefined) {
      done();
      return;
    }
    // Nothing is named with a NUL, and looking one up fails on PostgreSQL: 400 before the lookup (decision 1900).
    const nul = nulInPathOrQuery(request);
    if (nul !== undefined) {
      done(nul);
      return;
    }
    let grant: Grant | Promise<Grant>;
    try {
      grant = checks.check(principal, access.role, access.target(request), access.environments?.(request));
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!(grant instanceof Promise)) {
      request.grant = grant;
      done();
      return;
    }
    grant.then((granted) => {
      request.grant = granted;
      done();
    }, done);
  };
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
