import { Type } from 'typebox';
import {
  AccountSchema,
  InvitationPreviewSchema,
  ResetPreviewSchema,
} from '../../domain/schemas/account-schemas.ts';
import { SignInThrottled } from '../../services/accounts/session-service.ts';
import type { Services } from '../../services/services.ts';
import { sendProblem } from '../problem.ts';
import { Closed, Email, LinkToken, Name, Password, problems } from '../schemas/common.ts';
import {
  clearSessionCookie,
  cookieOf,
  originProblem,
  SESSION_COOKIE,
  setSessionCookie,
} from '../session-cookie.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';

const tags = ['Dashboard sign-in'];

/** The use cases these routes call. */
type SignInUseCases = Pick<Services, 'accounts' | 'passwords' | 'sessions'>;

/**
 * The routes that start and end dashboard sessions. They sit outside the authenticated /v1
 * scope (nobody is signed in yet), so each checks `Origin` itself: a page of another site
 * cannot sign a browser in or out.
 */
export const authRoutes: RoutesPlugin<{ services: SignInUseCases }> = async (app, { services }) => {
  app.addHook('onRequest', async (request, reply) => {
    const refused = originProblem(request, false);
    if (refused) return sendProblem(reply, refused);
  });

  passwordSignIn(app, services);
  invitationAcceptance(app, services);
  passwordResets(app, services);
};

function passwordSignIn(app: RoutesApp, services: SignInUseCases): void {
  app.post(
    '/auth/sign-in',
    {
      schema: {
        tags,
        summary: 'Sign in to the dashboard: sets the session cookie',
        security: [],
        body: Closed({ email: Email, password: Password }),
        response: { 200: Type.Object({ account: AccountSchema }), ...problems(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      try {
        const { token, account, limit } = await services.sessions.signIn(
          request.body.email,
          request.body.password,
          request.ip,
        );
        rateLimitHeaders(reply, limit);
        setSessionCookie(request, reply, token, services.sessions.ttlSeconds);
        return { account };
      } catch (error) {
        if (error instanceof SignInThrottled) {
          rateLimitHeaders(reply, error.state);
          reply.header('retry-after', String(error.retryAfterSeconds));
        }
        throw error;
      }
    },
  );

  app.post(
    '/auth/sign-out',
    {
      schema: { tags, summary: 'End the dashboard session', security: [], response: { ...problems(403) } },
    },
    async (request, reply) => {
      const token = cookieOf(request, SESSION_COOKIE);
      if (token !== undefined) await services.sessions.signOut(token);
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    },
  );
}

function invitationAcceptance(app: RoutesApp, services: SignInUseCases): void {
  app.post(
    '/auth/invitation',
    {
      schema: {
        tags,
        summary: 'What an invitation link offers (before accepting it)',
        security: [],
        body: Closed({ token: LinkToken }),
        response: {
          200: InvitationPreviewSchema,
          ...problems(400, 403, 404),
        },
      },
    },
    async (request) => services.accounts.preview(request.body.token),
  );

  app.post(
    '/auth/join',
    {
      schema: {
        tags,
        summary: 'Accept an invitation (or the first-start setup link): creates the account and signs in',
        security: [],
        body: Closed({ token: LinkToken, email: Type.Optional(Email), name: Name, password: Password }),
        response: { 201: Type.Object({ account: AccountSchema }), ...problems(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const stored = await services.accounts.accept(request.body, request.id);
      const { token, account } = await services.sessions.start(stored);
      setSessionCookie(request, reply, token, services.sessions.ttlSeconds);
      return reply.code(201).send({ account });
    },
  );
}

function passwordResets(app: RoutesApp, services: SignInUseCases): void {
  app.post(
    '/auth/password-reset',
    {
      schema: {
        tags,
        summary: 'Whose password a reset link sets (before using it)',
        security: [],
        body: Closed({ token: LinkToken }),
        response: {
          200: ResetPreviewSchema,
          ...problems(400, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return services.passwords.previewReset(request.body.token);
    },
  );

  app.post(
    '/auth/reset-password',
    {
      schema: {
        tags,
        summary:
          'Use a one-time reset link: sets the password, ends every session of the account and signs in',
        security: [],
        body: Closed({ token: LinkToken, password: Password }),
        response: { 200: Type.Object({ account: AccountSchema }), ...problems(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const stored = await services.passwords.reset(request.body.token, request.body.password, request.id);
      const { token, account } = await services.sessions.start(stored);
      setSessionCookie(request, reply, token, services.sessions.ttlSeconds);
      return { account };
    },
  );
}

function rateLimitHeaders(
  reply: { header(name: string, value: string): unknown },
  state: { limit: number; remaining: number; resetSeconds: number },
) {
  reply.header('ratelimit-limit', String(state.limit));
  reply.header('ratelimit-remaining', String(state.remaining));
  reply.header('ratelimit-reset', String(state.resetSeconds));
}
