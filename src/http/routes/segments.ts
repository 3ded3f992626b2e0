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
import { Closed, PageQuery, ProjectParams, problems, RestoreSchema } from '../schemas/common.ts';
import {
  CreateSegmentSchema,
  PatchSegmentSchema,
  SegmentSchema,
  SegmentUsersSchema,
} from '../schemas/resources.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const tags = ['Segments'];
const SegmentParams = Closed({ segmentId: Type.String() });

export const segmentRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/projects/:projectId/segments',
    {
      schema: {
        tags,
        summary: "List a project's segments",
        params: ProjectParams,
        querystring: Closed(PageQuery),
        response: { 200: Type.Array(SegmentSchema), ...problems(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const page = await services.segments.list(
        actorOf(request),
        request.params.projectId,
        pageOf(request.query),
      );
      return sendPage(request, reply, page, (s) => s);
    },
  );

  app.post(
    '/projects/:projectId/segments',
    {
      schema: {
        tags,
        summary: 'Create a segment',
        params: ProjectParams,
        body: CreateSegmentSchema,
        response: { 201: SegmentSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const segment = await services.segments.create(
        actorOf(request),
        request.params.projectId,
        request.body,
      );
      return sendCreated(reply, `/v1/segments/${segment.id}`, segment);
    },
  );

  app.get(
    '/segments/:segmentId',
    {
      schema: {
        tags,
        summary: 'Get a segment',
        params: SegmentParams,
        response: { 200: SegmentSchema, ...problems(401, 403, 404) },
      },
    },
    async (request, reply) =>
      sendResource(reply, await services.segments.get(actorOf(request), request.params.segmentId)),
  );

  app.get(
    '/segments/:segmentId/used-by',
    {
      schema: {
        tags,
        summary: 'The flags and segments that use a segment (what stops its deletion)',
        params: SegmentParams,
        response: { 200: SegmentUsersSchema, ...problems(401, 403, 404) },
      },
    },
    async (request) => services.segments.usedBy(actorOf(request), request.params.segmentId),
  );

  app.patch(
    '/segments/:segmentId',
    {
      schema: {
        tags,
        summary: 'Change a segment (JSON merge patch)',
        params: SegmentParams,
        body: PatchSegmentSchema,
        response: { 200: SegmentSchema, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const segment = await services.segments.patch(
        actorOf(request),
        request.params.segmentId,
        request.body,
        {
          ifMatch: ifMatchOf(request),
        },
      );
      return sendResource(reply, segment);
    },
  );

  app.delete(
    '/segments/:segmentId',
    {
      schema: {
        tags,
        summary: 'Delete a segment (409 while a flag or segment uses it)',
        params: SegmentParams,
        response: { ...problems(401, 403, 404, 409, 412) },
      },
    },
    async (request, reply) => {
      await services.segments.delete(actorOf(request), request.params.segmentId, {
        ifMatch: ifMatchOf(request),
      });
      return sendNoContent(reply);
    },
  );

  app.post(
    '/segments/:segmentId/restore',
    {
      schema: {
        tags,
        summary: 'Restore an earlier version of a segment, from the audit log, as its next version',
        params: SegmentParams,
        body: RestoreSchema,
        response: { 200: SegmentSchema, ...problems(400, 401, 403, 404, 409, 412, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const segment = await services.segments.restore(
        actorOf(request),
        request.params.segmentId,
        request.body.version,
        { ifMatch: ifMatchOf(request) },
      );
      return sendResource(reply, segment);
    },
  );
};
