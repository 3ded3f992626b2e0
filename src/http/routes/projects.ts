import type { Services } from '../../services/services.ts';
import { pageOf, sendDeleted, sendListed, sendMade, sendRead, sendWritten } from '../request-helpers.ts';
import { ALL, ANY, access, ORGANISATION, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { ProjectParams, paged } from '../schemas/common.ts';
import { CreateProjectSchema, PatchProjectSchema, ProjectSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Projects']);

export const projectRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects',
    describe('List projects', {
      ...paged(ProjectSchema),
      config: access('viewer', ANY),
    }),
    async (request, reply) =>
      sendListed(request, reply, (actor) => services.projects.list(actor, pageOf(request.query))),
  );

  app.post(
    '/projects',
    describe('Create a project (organisation-wide admin key)', {
      body: CreateProjectSchema,
      201: ProjectSchema,
      problems: [409],
      config: access('admin', ORGANISATION, { environments: ALL }),
    }),
    async (request, reply) =>
      sendMade(
        request,
        reply,
        (actor) => services.projects.create(actor, request.body),
        (project) => `/v1/projects/${project.id}`,
      ),
  );

  app.get(
    '/projects/:projectId',
    describe('Get a project', {
      params: ProjectParams,
      200: ProjectSchema,
      config: access('viewer', PROJECT),
    }),
    async (request, reply) =>
      sendRead(request, reply, (actor) => services.projects.get(actor, request.params.projectId)),
  );

  app.patch(
    '/projects/:projectId',
    describe('Change a project (merge patch)', {
      params: ProjectParams,
      body: PatchProjectSchema,
      200: ProjectSchema,
      problems: [412],
      config: access('admin', PROJECT),
    }),
    async (request, reply) =>
      sendWritten(request, reply, (actor, options) =>
        services.projects.patch(actor, request.params.projectId, request.body, options),
      ),
  );

  app.delete(
    '/projects/:projectId',
    describe('Delete a project and everything in it (organisation-wide admin key)', {
      params: ProjectParams,
      problems: [412],
      config: access('admin', ORGANISATION, { environments: ALL }),
    }),
    async (request, reply) =>
      sendDeleted(request, reply, (actor, options) =>
        services.projects.delete(actor, request.params.projectId, options),
      ),
  );
};
