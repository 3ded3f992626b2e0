import { Type } from 'typebox';
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
import { Closed, PageQuery, ProjectParams, problems } from '../schemas/common.ts';
import { CreateProjectSchema, PatchProjectSchema, ProjectSchema } from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const tags = ['Projects'];

export const projectRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects',
    {
      schema: {
        tags,
        summary: 'List projects',
        querystring: Closed(PageQuery),
        response: { 200: Type.Array(ProjectSchema), ...problems(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const page = await services.projects.list(actorOf(request), pageOf(request.query));
      return sendPage(request, reply, page, (p) => p);
    },
  );

  app.post(
    '/projects',
    {
      schema: {
        tags,
        summary: 'Create a project (organisation-wide admin key)',
        body: CreateProjectSchema,
        response: { 201: ProjectSchema, ...problems(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const project = await services.projects.create(actorOf(request), request.body);
      return sendCreated(reply, `/v1/projects/${project.id}`, project);
    },
  );

  app.get(
    '/projects/:projectId',
    {
      schema: {
        tags,
        summary: 'Get a project',
        params: ProjectParams,
        response: { 200: ProjectSchema, ...problems(401, 403, 404) },
      },
    },
    async (request, reply) =>
      sendResource(reply, await services.projects.get(actorOf(request), request.params.projectId)),
  );

  app.patch(
    '/projects/:projectId',
    {
      schema: {
        tags,
        summary: 'Change a project (merge patch)',
        params: ProjectParams,
        body: PatchProjectSchema,
        response: { 200: ProjectSchema, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const project = await services.projects.patch(
        actorOf(request),
        request.params.projectId,
        request.body,
        {
          ifMatch: ifMatchOf(request),
        },
      );
      return sendResource(reply, project);
    },
  );

  app.delete(
    '/projects/:projectId',
    {
      schema: {
        tags,
        summary: 'Delete a project and everything in it (organisation-wide admin key)',
        params: ProjectParams,
        response: { ...problems(401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await services.projects.delete(actorOf(request), request.params.projectId, {
        ifMatch: ifMatchOf(request),
      });
      return sendNoContent(reply);
    },
  );
};
