import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../services/services.ts';
import { actorOf } from '../request-helpers.ts';
import { discoveryRoute, ListQuery, provisioningRoute } from '../scim/provisioning-access.ts';
import { scimResourceTypes, scimSchemas } from '../scim/scim-discovery.ts';
import { SCIM, SCIM_TYPE, ScimError } from '../scim/scim-error.ts';
import { groupFilter, groupOf, groupPatchOf, scimGroup } from '../scim/scim-group.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';

const MAX_COUNT = 200;

const baseUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}/scim/v2`;
const send = (reply: FastifyReply, body: unknown, status = 200) =>
  reply.code(status).type(SCIM_TYPE).send(body);

const GroupParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const DiscoveryParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

/** A ListResponse (RFC 7644 §3.4.2) of one page. */
const listResponse = (resources: readonly unknown[], total: number, startIndex: number) => ({
  schemas: [SCIM.list],
  totalResults: total,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});

/**
 * SCIM 2.0 Groups (decision 1891) and the discovery endpoints /Schemas and /ResourceTypes
 * (RFC 7644 §4), registered inside the SCIM plugin (scim.ts), whose error handler, content types
 * and guard they share. A group's name maps to a role as the roles claim does; changing its
 * members changes their roles at once.
 */
export const scimGroupRoutes: RoutesPlugin<{ services: Pick<Services, 'provisionedGroups'> }> = async (
  app,
  { services },
) => {
  groupReadsAndCreation(app, services.provisionedGroups);
  groupChanges(app, services.provisionedGroups);
  discovery(app);
};

type Groups = Services['provisionedGroups'];

function groupReadsAndCreation(app: RoutesApp, groups: Groups): void {
  app.get(
    '/Groups',
    provisioningRoute(
      'List groups (ListResponse), optionally filter=displayName eq "…" or externalId eq "…"',
      {
        querystring: Type.Object({
          ...ListQuery,
          excludedAttributes: Type.Optional(Type.String({ maxLength: 200 })),
        }),
      },
    ),
    async (request, reply) => {
      const { query } = request;
      const startIndex = Math.max(1, query.startIndex ?? 1);
      const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? 100));
      const filter = query.filter === undefined ? undefined : groupFilter(query.filter);
      const by = filter === undefined ? {} : { [filter.attribute]: filter.value };
      const page = await groups.list(actorOf(request), by, startIndex - 1, count);
      // Entra ID asks for groups without their members when it only looks one up.
      const members = !/(^|,)\s*members\s*(,|$)/i.test(query.excludedAttributes ?? '');
      const resources = page.items.map((group) => scimGroup(group, baseUrl(request), members));
      return send(reply, listResponse(resources, page.total, startIndex));
    },
  );

  app.get(
    '/Groups/:id',
    provisioningRoute('Get a group with its members', { params: GroupParams }),
    async (request, reply) =>
      send(reply, scimGroup(await groups.get(actorOf(request), request.params.id), baseUrl(request))),
  );

  app.post(
    '/Groups',
    provisioningRoute('Create a group: its members get the role its name maps to'),
    async (request, reply) => {
      const group = scimGroup(await groups.create(actorOf(request), groupOf(request.body)), baseUrl(request));
      reply.header('location', group.meta.location);
      return send(reply, group, 201);
    },
  );
}

function groupChanges(app: RoutesApp, groups: Groups): void {
  app.put(
    '/Groups/:id',
    provisioningRoute('Replace a group (displayName, externalId, members)', { params: GroupParams }),
    async (request, reply) => {
      const input = groupOf(request.body);
      const group = await groups.update(actorOf(request), request.params.id, () => input);
      return send(reply, scimGroup(group, baseUrl(request)));
    },
  );

  app.patch(
    '/Groups/:id',
    provisioningRoute('Change a group: add or remove members, rename it', { params: GroupParams }),
    async (request, reply) => {
      const group = await groups.update(actorOf(request), request.params.id, groupPatchOf(request.body));
      return send(reply, scimGroup(group, baseUrl(request)));
    },
  );

  app.delete(
    '/Groups/:id',
    provisioningRoute('Delete a group: its members keep what other groups give them', {
      params: GroupParams,
    }),
    async (request, reply) => {
      await groups.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}

/** The discovery documents (RFC 7644 §4): each kind listed whole, and one by its id. */
const DISCOVERY = [
  {
    path: '/Schemas',
    all: scimSchemas,
    summary: 'The User and Group schemas',
    one: 'One schema, by its URN',
    what: 'schema',
  },
  {
    path: '/ResourceTypes',
    all: scimResourceTypes,
    summary: 'The resource types: User and Group',
    one: 'One resource type',
    what: 'resource type',
  },
] as const;

function discovery(app: RoutesApp): void {
  for (const { path, all, summary, one, what } of DISCOVERY) {
    app.get(path, discoveryRoute(summary), async (request, reply) => {
      const documents = all(baseUrl(request));
      return send(reply, listResponse(documents, documents.length, 1));
    });
    app.get(`${path}/:id`, discoveryRoute(one, { params: DiscoveryParams }), async (request, reply) => {
      const document = all(baseUrl(request)).find((d) => d.id === request.params.id);
      if (document === undefined) throw new ScimError(404, `No ${what} "${request.params.id}".`);
      return send(reply, document);
    });
  }
}
