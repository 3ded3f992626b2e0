import { Type } from 'typebox';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import {
  actorOf,
  countedPageOf,
  sendGatedDelete,
  sendGatedWrite,
  sendListed,
  sendMade,
  sendRead,
} from '../request-helpers.ts';
import { ALL, access, PROJECT, SEGMENT } from '../route-access.ts';
import { CREATE_IN_PROJECT, describeRoutes } from '../route-schema.ts';
import {
  Closed,
  CountedPageQuery,
  Key,
  ProjectParams,
  RestoreSchema,
  SearchQuery,
} from '../schemas/common.ts';
import {
  CreateSegmentSchema,
  PatchSegmentSchema,
  SegmentSchema,
  SegmentUsersSchema,
} from '../schemas/resources.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Segments']);
const SegmentParams = Closed({ segmentId: Type.String() });
const ProjectSegmentParams = Closed({ projectId: Type.String(), segmentKey: Key });

/**
 * What every change to one segment shares: an editor may make it, and it reaches every
 * environment (a segment is in every environment's rules); it goes through the gate, so it may
 * answer 202 with the change request made instead; it is refused with 409 when the segment's state
 * forbids it (a delete while a flag uses it) and with 412 on a stale If-Match.
 */
const SegmentChange = {
  params: SegmentParams,
  202: ChangeRequestSchema,
  problems: [409, 412],
  config: access('editor', SEGMENT, { environments: ALL }),
};

/** The use cases these routes call. */
type SegmentUseCases = Pick<Services, 'segments'>;

export const segmentRoutes: RoutesPlugin<{ services: SegmentUseCases }> = async (app, { services }) => {
  segmentsOfProject(app, services);
  segmentById(app, services);
};

function segmentsOfProject(app: RoutesApp, services: SegmentUseCases): void {
  app.get(
    '/projects/:projectId/segments',
    describe("List a project's segments", {
      params: ProjectParams,
      description:
        'Pages both ways, as the flag list does: `Link` rel="next" and rel="prev", with `X-Total-Count` (the segments that match, on every page) and `X-Page-Offset` (how many come before this page).',
      querystring: Closed({ ...CountedPageQuery, q: SearchQuery }),
      200: Type.Array(SegmentSchema),
      config: access('viewer', PROJECT),
    }),
    async (request, reply) =>
      sendListed(request, reply, (actor) =>
        services.segments.list(
          actor,
          request.params.projectId,
          { q: request.query.q },
          countedPageOf(request.query),
        ),
      ),
  );

  app.post(
    '/projects/:projectId/segments',
    describe('Create a segment', {
      ...CREATE_IN_PROJECT,
      body: CreateSegmentSchema,
      201: SegmentSchema,
    }),
    async (request, reply) =>
      sendMade(
        request,
        reply,
        (actor) => services.segments.create(actor, request.params.projectId, request.body),
        (segment) => `/v1/segments/${segment.id}`,
      ),
  );

  app.get(
    '/projects/:projectId/segments/:segmentKey',
    describe('Get a segment by its key', {
      description: 'The segment is named by its key or by its `seg_…` id.',
      params: ProjectSegmentParams,
      200: SegmentSchema,
      config: access('viewer', PROJECT),
    }),
    async (request, reply) =>
      sendRead(request, reply, (actor) =>
        services.segments.getInProject(actor, request.params.projectId, request.params.segmentKey),
      ),
  );
}

function segmentById(app: RoutesApp, services: SegmentUseCases): void {
  app.get(
    '/segments/:segmentId',
    describe('Get a segment', {
      params: SegmentParams,
      200: SegmentSchema,
      config: access('viewer', SEGMENT),
    }),
    async (request, reply) =>
      sendRead(request, reply, (actor) => services.segments.get(actor, request.params.segmentId)),
  );

  app.get(
    '/segments/:segmentId/used-by',
    describe('The flags and segments that use a segment (what stops its deletion)', {
      params: SegmentParams,
      200: SegmentUsersSchema,
      config: access('viewer', SEGMENT),
    }),
    async (request) => services.segments.usedBy(actorOf(request), request.params.segmentId),
  );

  app.patch(
    '/segments/:segmentId',
    describe('Change a segment (JSON merge patch)', {
      ...SegmentChange,
      body: PatchSegmentSchema,
      200: SegmentSchema,
    }),
    async (request, reply) =>
      sendGatedWrite(request, reply, (actor, options) =>
        services.segments.patch(actor, request.params.segmentId, request.body, options),
      ),
  );

  app.delete(
    '/segments/:segmentId',
    describe('Delete a segment (409 while a flag or segment uses it)', SegmentChange),
    async (request, reply) =>
      sendGatedDelete(request, reply, (actor, options) =>
        services.segments.delete(actor, request.params.segmentId, options),
      ),
  );

  app.post(
    '/segments/:segmentId/restore',
    describe('Restore an earlier version of a segment, from the audit log, as its next version', {
      ...SegmentChange,
      body: RestoreSchema,
      200: SegmentSchema,
    }),
    async (request, reply) =>
      sendGatedWrite(request, reply, (actor, options) =>
        services.segments.restore(actor, request.params.segmentId, request.body.version, options),
      ),
  );
}
