import type { Services } from '../../services/services.ts';
import { pageOf } from '../request-helpers.ts';
import { ALL, ANY, access, ORGANISATION, PROJECT } from '../route-access.ts';
import { createRoute, deleteRoute, listRoute, readRoute, writeRoute } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { ProjectParams, paged } from '../schemas/common.ts';
import { CreateProjectSchema, PatchProjectSchema, ProjectSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Projects']);

export const projectRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  listRoute(
    app,
    '/projects',
    describe('List projects', { ...paged(ProjectSchema), config: access('viewer', ANY) }),
    (actor, { query }) => services.projects.list(actor, pageOf(query)),
  );
  createRoute(
    app,
    '/projects',
    describe('Create a project (organisation-wide admin key)', {
      body: CreateProjectSchema,
      201: ProjectSchema,
      problems: [409],
      config: access('admin', ORGANISATION, { environments: ALL }),
    }),
    (actor, { body }) => services.projects.create(actor, body),
    (project) => `/v1/projects/${project.id}`,
  );
  readRoute(
    app,
    '/projects/:projectId',
    describe('Get a project', {
      params: ProjectParams,
      200: ProjectSchema,
      config: access('viewer', PROJECT),
    }),
    (actor, { params }) => services.projects.get(actor, params.projectId),
  );
  writeRoute(
    app,
    'patch',
    '/projects/:projectId',
    describe('Change a project (merge patch)', {
      params: ProjectParams,
      body: PatchProjectSchema,
      200: ProjectSchema,
      problems: [412],
      config: access('admin', PROJECT),
    }),
    (actor, { params, body }, options) => services.projects.patch(actor, params.projectId, body, options),
  );
  deleteRoute(
    app,
    '/projects/:projectId',
    describe('Delete a project and everything in it (organisation-wide admin key)', {
      params: ProjectParams,
      problems: [412],
      config: access('admin', ORGANISATION, { environments: ALL }),
    }),
    (actor, { params }, options) => services.projects.delete(actor, params.projectId, options),
  );
};
