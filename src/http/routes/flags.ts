import { Type } from 'typebox';
import type { Flag } from '../../domain/flag.ts';
import type { Services } from '../../services/services.ts';
import {
  actorOf,
  ifMatchOf,
  pageOf,
  sendCreated,
  sendNoContent,
  sendPage,
  sendResource,
} from '../request-helpers.ts';
import { Closed, Key, PageQuery, ProjectParams, problems, RestoreSchema } from '../schemas/common.ts';
import { CreateFlagSchema, FlagSchema, FlagSummarySchema, PatchFlagSchema } from '../schemas/flags.ts';
import type { RoutesPlugin } from '../type-provider.ts';
import { ChangeRequestSchema } from './change-requests.ts';

const tags = ['Flags'];
const EnvironmentQuery = Type.Optional(Key);
const FlagIdParams = Closed({ flagId: Type.String() });

/** The seed's list shape: `enabled` is the flag's state in one environment. */
const summary = (environment: string) => (flag: Flag) => ({
  id: flag.id,
  key: flag.key,
  name: flag.name,
  type: flag.type,
  enabled: flag.environments[environment]?.enabled ?? false,
  description: flag.description,
  tags: flag.tags,
  archived: flag.archived,
  version: flag.version,
  createdAt: flag.createdAt,
  updatedAt: flag.updatedAt,
});

export const flagRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects/:projectId/flags',
    {
      schema: {
        tags,
        summary: "List a project's flags",
        params: ProjectParams,
        querystring: Closed({
          ...PageQuery,
          environment: EnvironmentQuery,
          tag: Type.Optional(Key),
          q: Type.Optional(Type.String({ maxLength: 200 })),
          archived: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Array(FlagSummarySchema), ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { environment = 'production', tag, q, archived } = request.query;
      const page = await services.flags.list(
        actorOf(request),
        request.params.projectId,
        environment,
        { tag, q, archived },
        pageOf(request.query),
      );
      return sendPage(request, reply, page, summary(environment));
    },
  );

  app.post(
    '/projects/:projectId/flags',
    {
      schema: {
        tags,
        summary: 'Create a flag (only `key` is required; `type` defaults to boolean)',
        params: ProjectParams,
        body: CreateFlagSchema,
        response: { 201: FlagSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const flag = await services.flags.create(
        actorOf(request),
        request.params.projectId,
        request.body as never,
      );
      return sendCreated(reply, `/v1/projects/${flag.projectId}/flags/${flag.key}`, flag);
    },
  );

  app.get(
    '/projects/:projectId/flags/:flagKey',
    {
      schema: {
        tags,
        summary: 'Get a flag with its configuration in every environment',
        params: Closed({ projectId: Type.String(), flagKey: Key }),
        response: { 200: FlagSchema, ...problems(401, 403, 404) },
      },
    },
    async (request, reply) =>
      sendResource(
        reply,
        await services.flags.get(actorOf(request), request.params.projectId, request.params.flagKey),
      ),
  );

  app.patch(
    '/flags/:flagId',
    {
      schema: {
        tags,
        summary: 'Change a flag (JSON merge patch)',
        description:
          'Flag fields, and the environment fields (`enabled`, `offVariant`, `defaultVariant`, `defaultRollout`, `targets`, `rules`) of `?environment=` (default production), or of several environments with `environments: { <envKey>: {…} }`.',
        params: FlagIdParams,
        querystring: Closed({ environment: EnvironmentQuery }),
        body: PatchFlagSchema,
        response: {
          200: FlagSchema,
          202: ChangeRequestSchema,
          ...problems(400, 401, 403, 404, 409, 412, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const outcome = await services.changeRequests.patchOrRequest(
        actorOf(request),
        request.params.flagId,
        request.body,
        { environment: request.query.environment, ifMatch: ifMatchOf(request) },
      );
      if ('request' in outcome) {
        reply.header('location', `/v1/change-requests/${outcome.request.id}`);
        return sendResource(reply, outcome.request, 202);
      }
      return sendResource(reply, outcome.flag);
    },
  );

  app.delete(
    '/flags/:flagId',
    {
      schema: {
        tags,
        summary: 'Delete a flag',
        params: FlagIdParams,
        response: { ...problems(401, 403, 404, 409, 412) },
      },
    },
    async (request, reply) => {
      await services.flags.delete(actorOf(request), request.params.flagId, { ifMatch: ifMatchOf(request) });
      return sendNoContent(reply);
    },
  );

  app.post(
    '/flags/:flagId/restore',
    {
      schema: {
        tags,
        summary: 'Restore an earlier version of a flag, from the audit log, as its next version',
        description:
          'Environments created since that version keep their current configuration. Honours If-Match.',
        params: FlagIdParams,
        body: RestoreSchema,
        response: { 200: FlagSchema, ...problems(400, 401, 403, 404, 409, 412, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const flag = await services.flags.restore(
        actorOf(request),
        request.params.flagId,
        request.body.version,
        {
          ifMatch: ifMatchOf(request),
        },
      );
      return sendResource(reply, flag);
    },
  );

  app.get(
    '/flags/:flagId/dependants',
    {
      schema: {
        tags,
        summary: 'The flags that require this one as a prerequisite, with the environments where they do',
        params: FlagIdParams,
        response: {
          200: Type.Array(Type.Object({ key: Key, environments: Type.Array(Key) })),
          ...problems(401, 403, 404, 429),
        },
      },
    },
    async (request) => services.flags.dependants(actorOf(request), request.params.flagId),
  );
};
