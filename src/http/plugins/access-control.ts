import type { FastifyInstance } from 'fastify';
import type { Admission } from '../../access/admission.ts';
import type { Bucket } from '../../access/token-buckets.ts';
import type { RouteAccess } from '../route-access.ts';
import { type Authenticator, apiKeyAuthenticator } from './authentication.ts';
import type { RateLimitBudget } from './rate-limit.ts';

// What every guarded scope of one app shares: admission (access/admission.ts, built by the
// composition root), the ways a request carries credentials, and the routes guarded.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (see route-access.ts); `'public'`: no authentication at all. */
    access?: RouteAccess | 'public';
    /** The rate-limit budget the route draws from; default management; `false`: not limited. */
    rateLimit?: RateLimitBudget | false;
  }
  interface FastifyInstance {
    accessControl: AccessControl;
  }
  interface FastifyRequest {
    /** The principal's bucket of the route's budget, set by admission: the RateLimit headers. */
    bucket?: Bucket;
  }
}

/** A route the access hooks guard, with what it demands: the authorisation matrix test walks these. */
export interface GuardedRoute {
  readonly method: string;
  readonly url: string;
  readonly access: RouteAccess | undefined;
  readonly rateLimit: RateLimitBudget | false;
}

/** What every guarded scope of one app shares. */
export interface AccessControl {
  readonly admission: Admission;
  /** API keys first, then the others in order; the first that finds credentials of its kind decides. */
  readonly authenticators: readonly Authenticator[];
  readonly routes: GuardedRoute[];
}

/** Makes admission the app's, for every scope that then calls `registerGuard` (guard.ts). */
export function registerAccessControl(
  app: FastifyInstance,
  admission: Admission,
  authenticators: readonly Authenticator[] = [],
): AccessControl {
  const accessControl = { admission, authenticators: [apiKeyAuthenticator(), ...authenticators], routes: [] };
  app.decorate('accessControl', accessControl);
  // Declared, so that setting them per request keeps one shape for every request object.
  app.decorateRequest('principal', undefined);
  app.decorateRequest('grant', undefined);
  app.decorateRequest('bucket', undefined);
  return accessControl;
}
