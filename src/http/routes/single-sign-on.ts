import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.ts';
import { SignInOptionsSchema } from '../../domain/schemas/account-schemas.ts';
import { SignInNotVerified } from '../../services/accounts/oidc-relying-party.ts';
import { SignInRefused } from '../../services/accounts/sso-service.ts';
import type { Services } from '../../services/services.ts';
import { problem } from '../problem.ts';
import { routeGroups } from '../route-builders.ts';
import { problems } from '../schemas/common.ts';
import { cookieOf, httpOnlyCookie, setSessionCookie } from '../session-cookie.ts';
import { sendSignInError } from '../sign-in-error-page.ts';
import type { RoutesApp } from '../type-provider.ts';

/** A sign-in route's options: asked before any credential, so it names no security scheme. */
const signInRoute = <const Parts extends object>(summary: string, parts: Parts) => ({
  schema: { tags: ['Dashboard sign-in'], summary, security: [], ...parts },
});

/** Ties a sign-in's way back from the provider to the browser that started it (decision 1720). */
const PENDING_COOKIE = 'flagstaff_oidc';
const PENDING_PATH = '/v1/auth/oidc';
const PENDING_SECONDS = 600;

/** Where relative paths are resolved to be normalised; never part of what is answered. */
const PATH_BASE = 'http://dashboard.invalid';

/**
 * Only a path of this server's dashboard, so a crafted link cannot send someone elsewhere after
 * signing in: one leading slash (not `//host` nor `/\host`), not the API. Answered as the URL
 * parser writes it (dot segments resolved, non-ASCII percent-encoded), since a Location header
 * holds ASCII only and the API check must see the path the browser will go to.
 */
export function dashboardPath(raw: unknown): string {
  if (typeof raw !== 'string' || !/^\/(?![/\\])[^\s\\]*$/.test(raw)) return '/';
  const url = new URL(raw, PATH_BASE);
  if (url.origin !== PATH_BASE) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (/^\/(v1|scim|ofrep)(\/|$|\?)/i.test(path)) return '/';
  return path;
}

/**
 * How the dashboard's sign-in page offers a way in, and single sign-on through the organisation's
 * OpenID provider: `login` sends the browser there, `callback` brings it back signed in. Both
 * are browser navigations, so a refusal is a page (problem+json when the client asks for JSON).
 */
export const singleSignOnRoutes = routeGroups<Services>(
  signInOptions,
  singleSignOnLogin,
  singleSignOnCallback,
);

function signInOptions(app: RoutesApp, services: Services): void {
  const { sso } = services;
  app.get(
    '/auth/options',
    signInRoute('The ways to sign in to the dashboard: password, single sign-on, or both', {
      response: { 200: SignInOptionsSchema },
    }),
    async () => ({
      passwordSignIn: services.sessions.passwordSignIn,
      sso: sso === undefined ? null : { label: sso.label, loginPath: `${PENDING_PATH}/login` },
    }),
  );
}

/** A sign-in refused: the page (or problem) saying why, the failed check logged. */
function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  if (!(error instanceof DomainError)) throw error;
  // The failed check, for operators; never a token, a code or the claims.
  if (error instanceof SignInNotVerified || error instanceof SignInRefused)
    request.log.info({ reason: error.reason }, 'single sign-on refused');
  else request.log.info({ code: error.code }, 'single sign-on refused');
  return sendSignInError(request, reply, problem(error.code, error.message));
}

const notConfigured = problem('not_found', 'Single sign-on is not set up on this server.');

function singleSignOnLogin(app: RoutesApp, { sso }: Services): void {
  app.get(
    '/auth/oidc/login',
    signInRoute('Start single sign-on: redirects to the identity provider', {
      querystring: Type.Object({ returnTo: Type.Optional(Type.String({ maxLength: 2048 })) }),
      response: { ...problems(404, 429, 503) },
    }),
    async (request, reply) => {
      if (sso === undefined) return sendSignInError(request, reply, notConfigured);
      try {
        const { redirect, browserToken } = await sso.start(dashboardPath(request.query.returnTo), request.ip);
        reply.header(
          'set-cookie',
          httpOnlyCookie(request, PENDING_COOKIE, browserToken, {
            path: PENDING_PATH,
            maxAgeSeconds: PENDING_SECONDS,
            // The provider sends the browser back by a top-level navigation from its own site.
            sameSite: 'Lax',
          }),
        );
        reply.header('cache-control', 'no-store');
        return reply.redirect(redirect.href, 302);
      } catch (error) {
        return refuse(request, reply, error);
      }
    },
  );
}

function singleSignOnCallback(app: RoutesApp, services: Services): void {
  const { sso } = services;
  app.get(
    '/auth/oidc/callback',
    signInRoute('Where the identity provider sends people back: signs in and redirects to the dashboard', {
      response: { ...problems(400, 403, 404, 503) },
    }),
    async (request, reply) => {
      if (sso === undefined) return sendSignInError(request, reply, notConfigured);
      // The pending sign-in is used up whatever happens next: clear its cookie.
      reply.header(
        'set-cookie',
        httpOnlyCookie(request, PENDING_COOKIE, '', {
          path: PENDING_PATH,
          maxAgeSeconds: 0,
          sameSite: 'Lax',
        }),
      );
      try {
        // The registered redirect URI with the query the provider added: right behind a proxy too.
        const callback = new URL(sso.redirectUri);
        const query = request.url.indexOf('?');
        callback.search = query === -1 ? '' : request.url.slice(query);
        const { account, returnTo } = await sso.finish(
          callback,
          cookieOf(request, PENDING_COOKIE),
          request.id,
        );
        const { token } = await services.sessions.start(account, 'sso');
        setSessionCookie(request, reply, token, services.sessions.ttlSeconds);
        return reply.redirect(returnTo, 302);
      } catch (error) {
        return refuse(request, reply, error);
      }
    },
  );
}
