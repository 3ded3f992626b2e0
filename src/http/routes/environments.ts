import { Type } from 'typebox';
import type { Services } from '../../services/services.ts';
import { actorOf, ifMatchOf, sendCreated, sendNoContent, sendResource } from '../request-helpers.ts';
import { Closed, Key, ProjectParams, problems } from '../schemas/common.ts';
import { CreateEnvironmentSchema, EnvironmentSchema, PatchEnvironmentSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const tags = ['Environments'];
const EnvironmentParams = Closed({ projectId: Type.String(), envKey: Key });

export const environmentRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects/:projectId/environments',
    {
      schema: {
        tags,
        summary: "List a project's environments",
        params: ProjectParams,
        response: { 200: Type.Array(EnvironmentSchema), ...problems(401, 403, 404) },
      },
    },
    async (request) => {
      const environments = await services.environments.list(actorOf(request), request.params.projectId);
      const last = await services.insights.environmentsLastEvaluated(environments);
      return environments.map((e) => ({ ...e, lastEvaluatedAt: last.get(e.key) ?? null }));
    },
  );

  app.post(
    '/projects/:projectId/environments',
    {
      schema: {
        tags,
        summary: 'Create an environment (every flag disabled, or a copy of `copyFrom`)',
        params: ProjectParams,
        body: CreateEnvironmentSchema,
        response: { 201: EnvironmentSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const environment = await services.environments.create(
        actorOf(request),
        request.params.projectId,
        request.body,
      );
      return sendCreated(
        reply,
        `/v1/projects/${environment.projectId}/environments/${environment.key}`,
        environment,
      );
    },
  );

  app.get(
    '/projects/:projectId/environments/:envKey',
    {
      schema: {
        tags,
        summary: 'Get an environment',
        params: EnvironmentParams,
        response: { 200: EnvironmentSchema, ...problems(401, 403, 404) },
      },
    },
    async (request, reply) =>
      sendResource(
        reply,
        await services.environments.get(actorOf(request), request.params.projectId, request.params.envKey),
      ),
  );

  app.patch(
    '/projects/:projectId/environments/:envKey',
    {
      schema: {
        tags,
        summary: 'Change an environment (merge patch)',
        params: EnvironmentParams,
        body: PatchEnvironmentSchema,
        response: { 200: EnvironmentSchema, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const { projectId, envKey } = request.params;
      const environment = await services.environments.patch(
        actorOf(request),
        projectId,
        envKey,
        request.body,
        {
          ifMatch: ifMatchOf(request),
        },
      );
      return sendResource(reply, environment);
    },
  );

  app.delete(
    '/projects/:projectId/environments/:envKey',
    {
      schema: {
        tags,
        summary: 'Delete an environment (not the last one)',
        params: EnvironmentParams,
        response: { ...problems(401, 403, 404, 409, 412) },
      },
    },
    async (request, reply) => {
      const { projectId, envKey } = request.params;
      await services.environments.delete(actorOf(request), projectId, envKey, {
        ifMatch: ifMatchOf(request),
      });
      return sendNoContent(reply);
    },
  );
};
