import { Type } from 'typebox';
import { SyncSelectorSchema } from '../../domain/schemas/resource-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, pageOf, sendListed, sendNoContent } from '../request-helpers.ts';
import { API_KEY, access, newKeyPower, ORGANISATION, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, ProjectParams, paged } from '../schemas/common.ts';
import { ApiKeySchema, CreateApiKeySchema, CreatedApiKeySchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['API keys']);
const KeyParams = Closed({ keyId: Type.String() });

export const apiKeyRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  for (const scope of ['project', 'organisation'] as const) {
    const url = scope === 'project' ? '/projects/:projectId/api-keys' : '/api-keys';
    const params = scope === 'project' ? { params: ProjectParams } : {};
    const projectOf = (params: unknown) =>
      scope === 'project' ? (params as { projectId: string }).projectId : null;
    const who = scope === 'project' ? "a project's" : 'organisation-wide';
    const target = scope === 'project' ? PROJECT : ORGANISATION;

    app.get(
      url,
      describe(`List ${who} API keys (never their secrets)`, {
        ...params,
        ...paged(ApiKeySchema),
        config: access('admin', target),
      }),
      async (request, reply) =>
        sendListed(request, reply, (actor) =>
          services.apiKeys.list(actor, projectOf(request.params), pageOf(request.query)),
        ),
    );

    app.post(
      url,
      describe(
        `Create ${scope === 'project' ? "a project's" : 'an organisation-wide'} API key; the secret is shown once`,
        {
          ...params,
          body: CreateApiKeySchema,
          201: CreatedApiKeySchema,
          config: // A key cannot create a key with a higher role or wider environments than its own.
            access('admin', target, { body: newKeyPower }),
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
      const selectors = await services.apiKeys.flagdSyncSelectors(
        actorOf(request),
        request.params.keyId,
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
};
