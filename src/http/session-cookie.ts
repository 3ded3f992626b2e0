import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Credential } from '../access/admission.ts';
import { DomainError } from '../domain/errors.ts';
import type { SessionService } from '../services/accounts/session-service.ts';
import { hashSecret } from '../services/core/secrets.ts';
import type { Authenticator } from './plugins/authentication.ts';
import { type Problem, problem } from './problem.ts';

/** The dashboard's session cookie (docs/product.md §7): HttpOnly, SameSite=Strict, Secure over HTTPS. */
export const SESSION_COOKIE = 'flagstaff_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of one cookie of the request, or undefined. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/** HTTPS directly or behind a proxy that says so; a forged header only makes the cookie stricter. */
const overHttps = (request: FastifyRequest) =>
  request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';

/** An HttpOnly cookie, Secure whenever the request came over HTTPS. */
export function httpOnlyCookie(
  request: FastifyRequest,
  name: string,
  value: string,
  { path, maxAgeSeconds, sameSite }: { path: string; maxAgeSeconds: number; sameSite: 'Strict' | 'Lax' },
): string {
  const secure = overHttps(request) ? '; Secure' : '';
  return `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=${sameSite}${secure}`;
}

const cookie = (request: FastifyRequest, value: string, maxAgeSeconds: number) =>
  httpOnlyCookie(request, SESSION_COOKIE, value, { path: '/', maxAgeSeconds, sameSite: 'Strict' });

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
): void {
  reply.header('set-cookie', cookie(request, token, maxAgeSeconds));
  reply.header('cache-control', 'no-store');
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(request, '', 0));
}

/**
 * A request that changes state must come from a page of this server: its `Origin` must name
 * the host the request was sent to. Compared by host and port, not scheme, so a TLS-terminating
 * proxy in front does not break the dashboard. `required`: a missing Origin is refused too
 * (cookie-authenticated writes; browsers always send it on those).
 */
export function originProblem(request: FastifyRequest, required: boolean): Problem | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  const origin = request.headers.origin;
  if (origin === undefined) {
    return required
      ? problem('forbidden', 'A request signed in by cookie must carry the Origin header of this server.')
      : undefined;
  }
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = '';
  }
  if (host !== '' && host === request.headers.host) return undefined;
  return problem('forbidden', `Requests from ${origin} may not use this server's dashboard session.`);
}

/**
 * The dashboard's way to authenticate the /v1 API (docs/product.md §7: a second way, same roles, no back
 * door), for admission to check: the session cookie, named by its hash; its account's principal,
 * 401 once the session is unknown or expired, 403 when a state-changing request comes from
 * another origin.
 */
export function sessionAuthenticator(sessions: SessionService): Authenticator {
  return {
    credential(request: FastifyRequest): Credential | undefined {
      const token = cookieOf(request, SESSION_COOKIE);
      if (token === undefined) return undefined;
      const tokenHash = hashSecret(token);
      return {
        kind: 'verified',
        id: tokenHash,
        rejection: 'The session has ended or is unknown; sign in again.',
        async verify() {
          const found = await sessions.authenticateHash(tokenHash);
          if (found === undefined) return undefined;
          const refused = originProblem(request, true);
          return refused === undefined ? found.principal : new DomainError(refused.code, refused.detail);
        },
      };
    },
  };
}
