import { Type } from 'typebox';
import { ROLES } from '../../domain/api-key.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, pageOf, sendNoContent, sendPage, sendWritten } from '../request-helpers.ts';
import { ALL, ANY, access, OWN_ACCOUNT } from '../route-access.ts';
import {
  Closed,
  Email,
  Id,
  OneOf,
  PageQuery,
  Password,
  problems,
  Timestamp,
  Version,
} from '../schemas/common.ts';
import { cookieOf, SESSION_COOKIE } from '../session-cookie.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const tags = ['Accounts'];
const Role = OneOf(ROLES);

export const AccountSchema = Type.Object({
  id: Id,
  email: Type.String(),
  name: Type.String(),
  role: Role,
  projectId: Type.Union([Id, Type.Null()], { description: 'null: organisation-wide.' }),
  createdAt: Timestamp,
  lastLoginAt: Type.Union([Timestamp, Type.Null()]),
  version: Version,
  active: Type.Boolean({ description: 'false: deactivated over SCIM; it cannot sign in.' }),
  sso: Type.Union(
    [
      Type.Object({
        issuer: Type.String(),
        subject: Type.String(),
        roles: Type.Array(
          Type.Object({
            value: Type.String(),
            role: Role,
            project: Type.Union([Type.String(), Type.Null()]),
          }),
          { description: 'The claim values of the last sign-in that map to a role (FLAGSTAFF_OIDC_ROLES).' },
        ),
      }),
      Type.Null(),
    ],
    { description: 'Set when the account signs in through the identity provider; null otherwise.' },
  ),
  externalId: Type.Union([Type.String(), Type.Null()], {
    description: 'The identity provider’s id of an account it provisioned over SCIM.',
  }),
});

/** A project by key or id, or null for organisation-wide: where an account or invitation belongs. */
const AccountScope = Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
  description: 'Project key or id; null: organisation-wide.',
});

const PasswordResetSchema = Type.Object({
  id: Id,
  accountId: Id,
  createdBy: Type.Object({ type: Type.String(), id: Type.String(), name: Type.String() }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  usedAt: Type.Union([Timestamp, Type.Null()]),
});

const InvitationSchema = Type.Object({
  id: Id,
  email: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  projectId: Type.Union([Id, Type.Null()]),
  invitedBy: Type.Object({ type: Type.String(), id: Type.String(), name: Type.String() }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  acceptedAt: Type.Union([Timestamp, Type.Null()]),
});

const MeSchema = Type.Object({
  actor: Type.Object({
    type: OneOf(['api_key', 'user']),
    id: Type.String(),
    name: Type.String(),
    role: Role,
    projectId: Type.Union([Id, Type.Null()]),
    environments: Type.Union([Type.Array(Type.String()), Type.Null()]),
  }),
  account: Type.Union([AccountSchema, Type.Null()]),
});

/** Who is asking, and the accounts and invitations admins manage (docs/product.md §7). */
export const accountRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/me',
    // Who is asking: anyone authenticated.
    {
      config: access('evaluator', ANY),
      schema: {
        tags,
        summary: 'Who the request is authenticated as: an API key or a signed-in account',
        response: { 200: MeSchema, ...problems(401) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return { actor: actor.principal, account: (await services.accounts.me(actor)) ?? null };
    },
  );

  app.post(
    '/me/password',
    // One's own password: signed-in people only, whatever their role.
    {
      config: access('evaluator', OWN_ACCOUNT),
      schema: {
        tags,
        summary:
          'Change your own password (signed-in people only): needs the current one; your other sessions end',
        body: Closed({ currentPassword: Password, newPassword: Password }),
        response: { ...problems(400, 401, 403, 429) },
      },
    },
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

  app.get(
    '/accounts',
    // Accounts and invitations: admins; the use case narrows a project admin to its project's.
    {
      config: access('admin', ANY),
      schema: {
        tags,
        summary: 'List dashboard accounts (admin; a project admin sees the project’s own)',
        querystring: Closed(PageQuery),
        response: { 200: Type.Array(AccountSchema), ...problems(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const page = await services.accounts.list(actorOf(request), pageOf(request.query));
      return sendPage(request, reply, page, (a) => a);
    },
  );

  app.delete(
    '/accounts/:accountId',
    {
      config: access('admin', ANY),
      schema: {
        tags,
        summary: 'Remove an account and end its sessions (409 for the last organisation admin)',
        params: Closed({ accountId: Type.String() }),
        response: { ...problems(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await services.accounts.remove(actorOf(request), request.params.accountId);
      return sendNoContent(reply);
    },
  );

  // Changing an account's rights or handing out a way into it reaches every environment it sees.
  app.patch(
    '/accounts/:accountId',
    {
      config: access('admin', ANY, { environments: ALL }),
      schema: {
        tags,
        summary:
          "Change an account's role or project (admin of both scopes; 409 for the last organisation admin)",
        params: Closed({ accountId: Type.String() }),
        body: Closed({ role: Type.Optional(Role), project: Type.Optional(AccountScope) }),
        response: { 200: AccountSchema, ...problems(400, 401, 403, 404, 409, 412, 415, 429) },
      },
    },
    async (request, reply) =>
      sendWritten(request, reply, (actor, { ifMatch }) =>
        services.accounts.update(actor, request.params.accountId, request.body, ifMatch),
      ),
  );

  app.post(
    '/accounts/:accountId/password-reset',
    {
      config: access('admin', ANY, { environments: ALL }),
      schema: {
        tags,
        summary:
          'Create a one-time link (24 h) for the account to choose a new password; earlier unused links stop working',
        params: Closed({ accountId: Type.String() }),
        response: {
          201: Type.Object({
            ...PasswordResetSchema.properties,
            token: Type.String(),
            path: Type.String({ description: 'Open this path on the dashboard to choose the password.' }),
          }),
          ...problems(401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const reset = await services.passwords.createResetLink(actorOf(request), request.params.accountId);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...reset, path: `/reset-password#${reset.token}` });
    },
  );

  app.get(
    '/invitations',
    {
      config: access('admin', ANY),
      schema: {
        tags,
        summary: 'List pending invitations (admin)',
        querystring: Closed(PageQuery),
        response: { 200: Type.Array(InvitationSchema), ...problems(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const page = await services.accounts.listInvitations(actorOf(request), pageOf(request.query));
      return sendPage(request, reply, page, (i) => i);
    },
  );

  app.post(
    '/invitations',
    {
      config: access('admin', ANY),
      schema: {
        tags,
        summary: 'Invite someone: the one-time link is in the response, once',
        body: Closed({
          email: Email,
          role: Role,
          project: AccountScope,
        }),
        response: {
          201: Type.Object({
            ...InvitationSchema.properties,
            token: Type.String(),
            path: Type.String({ description: 'Open this path on the dashboard to accept.' }),
          }),
          ...problems(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const invitation = await services.accounts.invite(actorOf(request), request.body);
      reply.header('cache-control', 'no-store');
      reply.header('location', `/v1/invitations/${invitation.id}`);
      return reply.code(201).send({ ...invitation, path: `/join#${invitation.token}` });
    },
  );

  app.delete(
    '/invitations/:invitationId',
    {
      config: access('admin', ANY),
      schema: {
        tags,
        summary: 'Withdraw an invitation',
        params: Closed({ invitationId: Type.String() }),
        response: { ...problems(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await services.accounts.cancelInvitation(actorOf(request), request.params.invitationId);
      return sendNoContent(reply);
    },
  );
};
