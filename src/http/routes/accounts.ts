import { Type } from 'typebox';
import {
  AccountSchema,
  CreatedInvitationSchema,
  CreatedPasswordResetSchema,
  InvitationSchema,
  MeSchema,
} from '../../domain/schemas/account-schemas.ts';
import { RoleSchema } from '../../domain/schemas/resource-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, countedPageOf, pageOf, sendNoContent } from '../request-helpers.ts';
import { ALL, ANY, access, OWN_ACCOUNT } from '../route-access.ts';
import { listRoute, routeGroups, writeRoute } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, CountedPageQuery, Email, Password, paged, searchQueryOver } from '../schemas/common.ts';
import { cookieOf, SESSION_COOKIE } from '../session-cookie.ts';
import type { RoutesApp } from '../type-provider.ts';

const describe = describeRoutes(['Accounts']);
const AccountParams = Closed({ accountId: Type.String() });

/** A project by key or id, or null for organisation-wide: where an account or invitation belongs. */
const AccountScope = Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
  description: 'Project key or id; null: organisation-wide.',
});

/** The use cases these routes call. */
type AccountUseCases = Pick<Services, 'accounts' | 'sessions' | 'passwords'>;

/** Who is asking, and the accounts and invitations admins manage (docs/product.md §7). */
export const accountRoutes = routeGroups<AccountUseCases>(
  ownAccountRoutes,
  accountAdministration,
  invitationRoutes,
);

function ownAccountRoutes(app: RoutesApp, services: AccountUseCases): void {
  app.get(
    '/me',
    describe('Who the request is authenticated as: an API key or a signed-in account', {
      200: MeSchema,
      // Who is asking: anyone authenticated.
      config: access('evaluator', ANY),
    }),
    async (request) => {
      const actor = actorOf(request);
      return { actor: actor.principal, account: (await services.accounts.me(actor)) ?? null };
    },
  );

  app.post(
    '/me/password',
    describe(
      'Change your own password (signed-in people only): needs the current one; your other sessions end',
      {
        body: Closed({ currentPassword: Password, newPassword: Password }),
        // An account bound to single sign-on has no password (decision 1890).
        problems: [409],
        // One's own password: signed-in people only, whatever their role.
        config: access('evaluator', OWN_ACCOUNT),
      },
    ),
    async (request, reply) => {
      const token = cookieOf(request, SESSION_COOKIE);
      const current = token === undefined ? undefined : await services.sessions.authenticate(token);
      await services.passwords.changeOwn(
        actorOf(request),
        request.body,
        current?.session.id ?? '',
        request.ip,
      );
      return sendNoContent(reply);
    },
  );
}

function accountAdministration(app: RoutesApp, services: AccountUseCases): void {
  listRoute(
    app,
    '/accounts',
    describe('List dashboard accounts (admin; a project admin sees the project’s own)', {
      description:
        'Creation order. Pages both ways, as the flag list does (decision 1846): `Link` rel="next" and rel="prev", with `X-Total-Count` (the accounts that match, on every page) and `X-Page-Offset` (how many come before this page).',
      querystring: Closed({ ...CountedPageQuery, q: searchQueryOver('email or name') }),
      200: Type.Array(AccountSchema),
      // Accounts and invitations: admins; the use case narrows a project admin to its project's.
      config: access('admin', ANY),
    }),
    (actor, { query }) => services.accounts.list(actor, { q: query.q }, countedPageOf(query)),
  );

  app.delete(
    '/accounts/:accountId',
    describe('Remove an account and end its sessions (409 for the last organisation admin)', {
      params: AccountParams,
      problems: [409],
      config: access('admin', ANY),
    }),
    async (request, reply) => {
      await services.accounts.remove(actorOf(request), request.params.accountId);
      return sendNoContent(reply);
    },
  );

  // Changing an account's rights or handing out a way into it reaches every environment it sees.
  writeRoute(
    app,
    'patch',
    '/accounts/:accountId',
    describe(
      "Change an account's role or project (admin of both scopes; 409 for the last organisation admin)",
      {
        params: AccountParams,
        body: Closed({ role: Type.Optional(RoleSchema), project: Type.Optional(AccountScope) }),
        200: AccountSchema,
        problems: [409, 412],
        config: access('admin', ANY, { environments: ALL }),
      },
    ),
    (actor, { params, body }, { ifMatch }) =>
      services.accounts.update(actor, params.accountId, body, ifMatch),
  );

  app.post(
    '/accounts/:accountId/password-reset',
    describe(
      'Create a one-time link (24 h) for the account to choose a new password; earlier unused links stop working',
      {
        params: AccountParams,
        201: CreatedPasswordResetSchema,
        // An account bound to single sign-on has no password (decision 1890).
        problems: [409],
        config: access('admin', ANY, { environments: ALL }),
      },
    ),
    async (request, reply) => {
      const reset = await services.passwords.createResetLink(actorOf(request), request.params.accountId);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...reset, path: `/reset-password#${reset.token}` });
    },
  );
}

function invitationRoutes(app: RoutesApp, services: AccountUseCases): void {
  listRoute(
    app,
    '/invitations',
    describe('List pending invitations (admin)', {
      ...paged(InvitationSchema),
      config: access('admin', ANY),
    }),
    (actor, { query }) => services.accounts.listInvitations(actor, pageOf(query)),
  );

  app.post(
    '/invitations',
    describe('Invite someone: the one-time link is in the response, once', {
      body: Closed({
        email: Email,
        role: RoleSchema,
        project: AccountScope,
      }),
      201: CreatedInvitationSchema,
      // The project it names may not exist; the invitee's email may already have an account.
      problems: [404, 409],
      config: access('admin', ANY),
    }),
    async (request, reply) => {
      const invitation = await services.accounts.invite(actorOf(request), request.body);
      reply.header('cache-control', 'no-store');
      reply.header('location', `/v1/invitations/${invitation.id}`);
      return reply.code(201).send({ ...invitation, path: `/join#${invitation.token}` });
    },
  );

  app.delete(
    '/invitations/:invitationId',
    describe('Withdraw an invitation', {
      params: Closed({ invitationId: Type.String() }),
      config: access('admin', ANY),
    }),
    async (request, reply) => {
      await services.accounts.cancelInvitation(actorOf(request), request.params.invitationId);
      return sendNoContent(reply);
    },
  );
}
