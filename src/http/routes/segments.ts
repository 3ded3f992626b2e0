import { Type } from 'typebox';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, countedPageOf } from '../request-helpers.ts';
import { ALL, access, PROJECT, SEGMENT } from '../route-access.ts';
import {
  createRoute,
  gatedDeleteRoute,
  gatedWriteRoute,
  listRoute,
  readRoute,
  routeGroups,
} from '../route-builders.ts';
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
import type { RoutesApp } from '../type-provider.ts';

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

export const segmentRoutes = routeGroups<SegmentUseCases>(segmentsOfProject, segmentById);

function segmentsOfProject(app: RoutesApp, services: SegmentUseCases): void {
  listRoute(
    app,
    '/projects/:projectId/segments',
    describe("List a project's segments", {
      params: ProjectParams,
      description:
        'Pages both ways, as the flag list does: `Link` rel="next" and rel="prev", with `X-Total-Count` (the segments that match, on every page) and `X-Page-Offset` (how many come before this page).',
      querystring: Closed({ ...CountedPageQuery, q: SearchQuery }),
      200: Type.Array(SegmentSchema),
      config: access('viewer', PROJECT),
    }),
    (actor, { params, query }) =>
      services.segments.list(actor, params.projectId, { q: query.q }, countedPageOf(query)),
  );

  createRoute(
    app,
    '/projects/:projectId/segments',
    describe('Create a segment', {
      ...CREATE_IN_PROJECT,
      body: CreateSegmentSchema,
      201: SegmentSchema,
    }),
    (actor, { params, body }) => services.segments.create(actor, params.projectId, body),
    (segment) => `/v1/segments/${segment.id}`,
  );

  readRoute(
    app,
    '/projects/:projectId/segments/:segmentKey',
    describe('Get a segment by its key', {
      description: 'The segment is named by its key or by its `seg_…` id.',
      params: ProjectSegmentParams,
      200: SegmentSchema,
      config: access('viewer', PROJECT),
    }),
    (actor, { params }) => services.segments.getInProject(actor, params.projectId, params.segmentKey),
  );
}

function segmentById(app: RoutesApp, services: SegmentUseCases): void {
  readRoute(
    app,
    '/segments/:segmentId',
    describe('Get a segment', {
      params: SegmentParams,
      200: SegmentSchema,
      config: access('viewer', SEGMENT),
    }),
    (actor, { params }) => services.segments.get(actor, params.segmentId),
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

  gatedWriteRoute(
    app,
    'patch',
    '/segments/:segmentId',
    describe('Change a segment (JSON merge patch)', {
      ...SegmentChange,
      body: PatchSegmentSchema,
      200: SegmentSchema,
    }),
    (actor, { params, body }, options) => services.segments.patch(actor, params.segmentId, body, options),
  );
  gatedDeleteRoute(
    app,
    '/segments/:segmentId',
    describe('Delete a segment (409 while a flag or segment uses it)', SegmentChange),
    (actor, { params }, options) => services.segments.delete(actor, params.segmentId, options),
  );
  gatedWriteRoute(
    app,
    'post',
    '/segments/:segmentId/restore',
    describe('Restore an earlier version of a segment, from the audit log, as its next version', {
      ...SegmentChange,
      body: RestoreSchema,
      200: SegmentSchema,
    }),
    (actor, { params, body }, options) =>
      services.segments.restore(actor, params.segmentId, body.version, options),
  );
}
