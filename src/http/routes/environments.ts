import { Type } from 'typebox';
import type { Services } from '../../services/services.ts';
import { actorOf } from '../request-helpers.ts';
import { ALL, access, PATH_ENVIRONMENT, PROJECT } from '../route-access.ts';
import { createRoute, deleteRoute, readRoute, routeGroups, writeRoute } from '../route-builders.ts';
import { CREATE_IN_PROJECT, describeRoutes } from '../route-schema.ts';
import { EnvironmentParams, ProjectParams } from '../schemas/common.ts';
import { CreateEnvironmentSchema, EnvironmentSchema, PatchEnvironmentSchema } from '../schemas/resources.ts';
import type { RoutesApp } from '../type-provider.ts';

const describe = describeRoutes(['Environments']);

/** The use cases these routes call. */
type EnvironmentUseCases = Pick<Services, 'environments' | 'insights'>;

export const environmentRoutes = routeGroups<EnvironmentUseCases>(environmentReads, environmentWrites);

function environmentReads(app: RoutesApp, services: EnvironmentUseCases): void {
  app.get(
    '/projects/:projectId/environments',
    describe("List a project's environments", {
      params: ProjectParams,
      200: Type.Array(EnvironmentSchema),
      config: access('viewer', PROJECT),
    }),
    async (request) => {
      const environments = await services.environments.list(actorOf(request), request.params.projectId);
      const last = await services.insights.environmentsLastEvaluated(environments);
      return environments.map((e) => ({ ...e, lastEvaluatedAt: last.get(e.key) ?? null }));
    },
  );

  createRoute(
    app,
    '/projects/:projectId/environments',
    describe('Create an environment (every flag disabled, or a copy of `copyFrom`)', {
      ...CREATE_IN_PROJECT,
      body: CreateEnvironmentSchema,
      201: EnvironmentSchema,
    }),
    (actor, { params, body }) => services.environments.create(actor, params.projectId, body),
    (environment) => `/v1/projects/${environment.projectId}/environments/${environment.key}`,
  );
}

function environmentWrites(app: RoutesApp, services: EnvironmentUseCases): void {
  readRoute(
    app,
    '/projects/:projectId/environments/:envKey',
    describe('Get an environment', {
      params: EnvironmentParams,
      200: EnvironmentSchema,
      config: access('viewer', PROJECT),
    }),
    (actor, { params }) => services.environments.get(actor, params.projectId, params.envKey),
  );

  writeRoute(
    app,
    'patch',
    '/projects/:projectId/environments/:envKey',
    describe('Change an environment (merge patch)', {
      params: EnvironmentParams,
      body: PatchEnvironmentSchema,
      200: EnvironmentSchema,
      problems: [412],
      // Changing `protected` or `requiredApprovals` is an admin's: the use case compares them with the stored ones.
      config: access('editor', PROJECT, { environments: PATH_ENVIRONMENT }),
    }),
    (actor, { params, body }, options) =>
      services.environments.patch(actor, params.projectId, params.envKey, body, options),
  );

  deleteRoute(
    app,
    '/projects/:projectId/environments/:envKey',
    describe('Delete an environment (not the last one)', {
      params: EnvironmentParams,
      problems: [409, 412],
      // Deleting an environment is governance: it takes its approvals and protection with it.
      config: access('admin', PROJECT, { environments: ALL }),
    }),
    (actor, { params }, options) =>
      services.environments.delete(actor, params.projectId, params.envKey, options),
  );
}
