import { Type } from 'typebox';
import { CHANGE_REQUEST_STATUSES } from '../../domain/change-request.ts';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, pageOf, sendRead, sendResource } from '../request-helpers.ts';
import { access, CHANGE_REQUEST, PROJECT } from '../route-access.ts';
import { listRoute, readRoute } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Description, OneOf, PageQuery, ProjectParams } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Change requests']);
const RequestParams = Closed({ requestId: Type.String() });

// Deciding needs editor rights over the environments the stored request changes: the use case checks them.
const decision = (summary: string, body?: ReturnType<typeof Closed>) => ({
  // The body is optional: no body at all means `{}`.
  preValidation: async (request: { body: unknown }) => {
    request.body ??= {};
  },
  ...describe(summary, {
    params: RequestParams,
    ...(body === undefined ? {} : { body }),
    200: ChangeRequestSchema,
    problems: [409, 412],
    config: access('editor', CHANGE_REQUEST),
  }),
});

export const changeRequestRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  listRoute(
    app,
    '/projects/:projectId/change-requests',
    describe("List a project's change requests, newest first", {
      params: ProjectParams,
      querystring: Closed({
        status: Type.Optional(OneOf(CHANGE_REQUEST_STATUSES)),
        flagId: Type.Optional(Type.String()),
        ...PageQuery,
      }),
      200: Type.Array(ChangeRequestSchema),
      config: access('viewer', PROJECT),
    }),
    (actor, { params, query: { status, flagId, ...page } }) =>
      services.changeRequests.list(actor, params.projectId, { status, flagId }, pageOf(page)),
  );
  readRoute(
    app,
    '/change-requests/:requestId',
    describe('Get a change request', {
      params: RequestParams,
      200: ChangeRequestSchema,
      config: access('viewer', CHANGE_REQUEST),
    }),
    (actor, { params }) => services.changeRequests.get(actor, params.requestId),
  );

  app.post(
    '/change-requests/:requestId/approve',
    decision(
      'Approve a change request (not your own); at the required count it is applied',
      Closed({ comment: Type.Optional(Description) }),
    ),
    async (request, reply) => {
      const body = (request.body ?? {}) as { comment?: string };
      return sendResource(
        reply,
        await services.changeRequests.approve(actorOf(request), request.params.requestId, body.comment ?? ''),
      );
    },
  );

  // Deciding without a body: the same route for each, the use case saying what each may do.
  const decisions = [
    ['reject', 'Reject a change request'],
    ['apply', 'Apply a fully approved change request; admins may apply one without its approvals'],
    ['withdraw', 'Withdraw your change request (or, as an admin, anyone’s)'],
  ] as const;
  for (const [action, summary] of decisions) {
    app.post(`/change-requests/:requestId/${action}`, decision(summary), async (request, reply) =>
      sendRead(request, reply, (actor) => services.changeRequests[action](actor, request.params.requestId)),
    );
  }
};
