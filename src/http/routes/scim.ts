import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DomainError, ERROR_CATALOGUE } from '../../domain/errors.ts';
import type { Services } from '../../services/services.ts';
import { acceptJson } from '../json-body.ts';
import { registerGuard } from '../plugins/guard.ts';
import { actorOf } from '../request-helpers.ts';
import { discoveryRoute, ListQuery, provisioningRoute } from '../scim/provisioning-access.ts';
import { SCIM, SCIM_TYPE, ScimError } from '../scim/scim-error.ts';
import { patchOf, personOf, scimUser, userFilter } from '../scim/scim-user.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';
import { scimGroupRoutes } from './scim-groups.ts';

const BODY_LIMIT = 64 * 1024;
const MAX_COUNT = 200;

/** The scimType RFC 7644 §3.12 gives the domain's refusals. */
const SCIM_TYPES: Partial<Record<string, string>> = {
  conflict: 'uniqueness',
  validation_failed: 'invalidValue',
};

function sendScimError(reply: FastifyReply, status: number, detail: string, scimType?: string) {
  return reply
    .code(status)
    .type(SCIM_TYPE)
    .send({ schemas: [SCIM.error], status: String(status), ...(scimType ? { scimType } : {}), detail });
}

const baseUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}/scim/v2`;

const UserParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/** The use cases these routes call. */
type ScimUseCases = Pick<Services, 'provisioning' | 'provisionedGroups'>;

/**
 * SCIM 2.0 Users (RFC 7643/7644) for the organisation's identity provider: list with
 * `filter=userName eq "…"` (or externalId), get, create, replace, PATCH, delete; Groups and
 * discovery in scim-groups.ts. Everything answers
 * application/scim+json, errors included; bodies are read leniently, as providers send
 * attributes Flagstaff does not keep.
 */
export const scimRoutes: RoutesPlugin<{ services: ScimUseCases }> = async (app, { services }) => {
  acceptJson(app, ['application/scim+json'], BODY_LIMIT);
  registerGuard(app);
  answerInScimForm(app);
  await app.register(scimGroupRoutes, { services });
  serviceProviderConfig(app);
  userReads(app, services.provisioning);
  userWrites(app, services.provisioning);
};

/** Errors, and the problems authentication and rate limits answer before any route runs, in SCIM's form. */
function answerInScimForm(app: RoutesApp): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ScimError) return sendScimError(reply, error.status, error.message, error.scimType);
    if (error instanceof DomainError) {
      return sendScimError(reply, ERROR_CATALOGUE[error.code].status, error.message, SCIM_TYPES[error.code]);
    }
    if (error.validation) return sendScimError(reply, 400, 'The request is not valid.', 'invalidValue');
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendScimError(reply, status, error.message, 'invalidSyntax');
    request.log.error({ err: error }, 'request failed');
    return sendScimError(reply, 500, `Something went wrong on our side. Request id: ${request.id}.`);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json')) return payload;
    const problem = JSON.parse(String(payload)) as { status: number; detail: string };
    reply.type(SCIM_TYPE);
    return JSON.stringify({ schemas: [SCIM.error], status: String(problem.status), detail: problem.detail });
  });
}

function serviceProviderConfig(app: RoutesApp): void {
  app.get(
    '/ServiceProviderConfig',
    discoveryRoute('What this SCIM service supports'),
    async (_request, reply) =>
      reply.type(SCIM_TYPE).send({
        schemas: [SCIM.serviceProviderConfig],
        patch: { supported: true },
        bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
        filter: { supported: true, maxResults: MAX_COUNT },
        changePassword: { supported: false },
        sort: { supported: false },
        etag: { supported: false },
        authenticationSchemes: [
          {
            type: 'oauthbearertoken',
            name: 'API key',
            description: 'An organisation-wide admin API key as Authorization: Bearer <key>.',
            primary: true,
          },
        ],
      }),
  );
}

function userReads(app: RoutesApp, provisioning: Services['provisioning']): void {
  app.get(
    '/Users',
    provisioningRoute('List users (ListResponse), optionally filter=userName eq "…" or externalId eq "…"', {
      querystring: Type.Object(ListQuery),
    }),
    async (request, reply) => {
      const actor = actorOf(request);
      const startIndex = Math.max(1, request.query.startIndex ?? 1);
      const count = Math.min(MAX_COUNT, Math.max(0, request.query.count ?? 100));
      let total: number;
      let items: readonly Parameters<typeof scimUser>[0][];
      if (request.query.filter !== undefined) {
        const { attribute, value } = userFilter(request.query.filter);
        const by = attribute === 'externalId' ? { externalId: value } : { userName: value };
        const found = await provisioning.find(actor, by);
        total = found.length;
        items = found.slice(startIndex - 1, startIndex - 1 + count);
      } else {
        ({ total, items } = await provisioning.list(actor, startIndex - 1, count));
      }
      return reply.type(SCIM_TYPE).send({
        schemas: [SCIM.list],
        totalResults: total,
        startIndex,
        itemsPerPage: items.length,
        Resources: items.map((account) => scimUser(account, baseUrl(request))),
      });
    },
  );

  app.get('/Users/:id', provisioningRoute('Get a user', { params: UserParams }), async (request, reply) =>
    reply
      .type(SCIM_TYPE)
      .send(scimUser(await provisioning.get(actorOf(request), request.params.id), baseUrl(request))),
  );
}

function userWrites(app: RoutesApp, provisioning: Services['provisioning']): void {
  app.post(
    '/Users',
    provisioningRoute('Create a user ahead of their first sign-in'),
    async (request, reply) => {
      const account = await provisioning.create(actorOf(request), personOf(request.body));
      const user = scimUser(account, baseUrl(request));
      return reply.code(201).header('location', user.meta.location).type(SCIM_TYPE).send(user);
    },
  );

  app.put(
    '/Users/:id',
    provisioningRoute('Replace a user (name, userName, active, externalId)', { params: UserParams }),
    async (request, reply) => {
      const account = await provisioning.update(actorOf(request), request.params.id, personOf(request.body));
      return reply.type(SCIM_TYPE).send(scimUser(account, baseUrl(request)));
    },
  );

  app.patch(
    '/Users/:id',
    provisioningRoute('Change a user: active false deactivates and ends its sessions', {
      params: UserParams,
    }),
    async (request, reply) => {
      const account = await provisioning.update(actorOf(request), request.params.id, patchOf(request.body));
      return reply.type(SCIM_TYPE).send(scimUser(account, baseUrl(request)));
    },
  );

  app.delete(
    '/Users/:id',
    provisioningRoute('Delete a user and end its sessions', { params: UserParams }),
    async (request, reply) => {
      await provisioning.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
