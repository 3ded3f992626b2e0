import { Type } from 'typebox';
import { SyncSelectorSchema } from '../../domain/schemas/resource-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, pageOf, sendNoContent } from '../request-helpers.ts';
import { API_KEY, access, newKeyPower, ORGANISATION, PROJECT } from '../route-access.ts';
import { listRoute } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, ProjectParams, paged } from '../schemas/common.ts';
import { ApiKeySchema, CreateApiKeySchema, CreatedApiKeySchema } from '../schemas/resources.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['API keys']);
const KeyParams = Closed({ keyId: Type.String() });

export const apiKeyRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  keysOfScope(app, services, 'project');
  keysOfScope(app, services, 'organisation');
  keyById(app, services);
};

/** Listing and creating the keys of a project, or the organisation-wide ones. */
function keysOfScope(app: RoutesApp, services: Services, scope: 'project' | 'organisation'): void {
  const url = scope === 'project' ? '/projects/:projectId/api-keys' : '/api-keys';
  const params = scope === 'project' ? { params: ProjectParams } : {};
  const projectOf = (params: unknown) =>
    scope === 'project' ? (params as { projectId: string }).projectId : null;
  const who = scope === 'project' ? "a project's" : 'organisation-wide';
  const target = scope === 'project' ? PROJECT : ORGANISATION;

  listRoute(
    app,
    url,
    describe(`List ${who} API keys (never their secrets)`, {
      ...params,
      ...paged(ApiKeySchema),
      config: access('admin', target),
    }),
    (actor, request) => services.apiKeys.list(actor, projectOf(request.params), pageOf(request.query)),
  );

  app.post(
    url,
    describe(
      `Create ${scope === 'project' ? "a project's" : 'an organisation-wide'} API key; the secret is shown once`,
      {
        ...params,
        body: CreateApiKeySchema,
        201: CreatedApiKeySchema,
        // A key cannot create a key with a higher role or wider environments than its own.
        config: access('admin', target, { body: newKeyPower }),
      },
    ),
    async (request, reply) => {
      const key = await services.apiKeys.create(actorOf(request), projectOf(request.params), request.body);
      reply.header('cache-control', 'no-store');
      reply.header('location', `/v1/api-keys/${key.id}`);
      return reply.code(201).send(key);
    },
  );
}

/** A key's flagd sync selectors, and revoking it. */
function keyById(app: RoutesApp, services: Services): void {
  app.get(
    '/api-keys/:keyId/flagd-sync',
    describe('The flagd sync selectors of a key, one per environment it may read', {
      params: KeyParams,
      querystring: Closed({
        project: Type.Optional(
          Type.String({ description: 'Project id or key; required for an organisation-wide key.' }),
        ),
      }),
      200: Type.Array(SyncSelectorSchema),
      config: access('admin', API_KEY),
    }),
    async (request, reply) => {
      const { keyId } = request.params;
      const selectors = await services.apiKeys.flagdSyncSelectors(
        actorOf(request),
        keyId,
        request.query.project,
      );
      reply.header('cache-control', 'no-store');
      return selectors;
    },
  );

  app.delete(
    '/api-keys/:keyId',
    describe('Revoke an API key (effective on the next request)', {
      params: KeyParams,
      config: access('admin', API_KEY),
    }),
    async (request, reply) => {
      await services.apiKeys.revoke(actorOf(request), request.params.keyId);
      return sendNoContent(reply);
    },
  );
}
