import { Type } from 'typebox';
import { SCHEDULED_CHANGE_STATUSES, type ScheduledChange } from '../../domain/scheduled-change.ts';
import { ChangeRequestSchema, ScheduledChangeSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, sendGated, sendNoContent } from '../request-helpers.ts';
import { access, FLAG, scheduledPatchEnvironments } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Description, FlagIdParams, Key, OneOf, Timestamp } from '../schemas/common.ts';
import { PatchFlagSchema } from '../schemas/flags.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Scheduled changes']);
const ChangeParams = Closed({ ...FlagIdParams.properties, changeId: Type.String() });

/** The wire shape: the author as the audit log names people, not their rights. */
const wire = (change: ScheduledChange) => ({
  id: change.id,
  flagId: change.flagId,
  environment: change.environment,
  patch: change.patch,
  comment: change.comment,
  at: change.at,
  status: change.status,
  author: { type: change.author.type, id: change.author.id, name: change.author.name },
  createdAt: change.createdAt,
  settledAt: change.settledAt,
  failure: change.failure,
});

export const scheduledChangeRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/flags/:flagId/scheduled-changes',
    describe('Schedule a change to a flag', {
      description:
        'The patch is what PATCH /v1/flags/{flagId} accepts; its environment fields apply to `environment`. It is checked now and applied at `at` (within a second) as its author; if it no longer validates then, it is marked failed with the reason and nothing is written.',
      params: FlagIdParams,
      body: Closed({
        at: Timestamp,
        environment: Key,
        patch: PatchFlagSchema,
        comment: Type.Optional(Description),
      }),
      201: ScheduledChangeSchema,
      202: ChangeRequestSchema,
      config: access('editor', FLAG, { body: scheduledPatchEnvironments }),
    }),
    async (request, reply) => {
      const outcome = await services.scheduledChanges.schedule(actorOf(request), request.params.flagId, {
        ...request.body,
        patch: request.body.patch,
      });
      return sendGated(reply, outcome, (change) => {
        reply.code(201).header('location', `/v1/flags/${change.flagId}/scheduled-changes/${change.id}`);
        return wire(change);
      });
    },
  );

  app.get(
    '/flags/:flagId/scheduled-changes',
    describe("List a flag's scheduled changes, earliest first", {
      params: FlagIdParams,
      querystring: Closed({ status: Type.Optional(OneOf(SCHEDULED_CHANGE_STATUSES)) }),
      200: Type.Array(ScheduledChangeSchema),
      config: access('viewer', FLAG),
    }),
    async (request) => {
      const changes = await services.scheduledChanges.list(
        actorOf(request),
        request.params.flagId,
        request.query.status,
      );
      return changes.map(wire);
    },
  );

  app.get(
    '/flags/:flagId/scheduled-changes/:changeId',
    describe('Get a scheduled change', {
      params: ChangeParams,
      200: ScheduledChangeSchema,
      config: access('viewer', FLAG),
    }),
    async (request) =>
      wire(
        await services.scheduledChanges.get(actorOf(request), request.params.flagId, request.params.changeId),
      ),
  );

  // Which environments a cancel reaches is the stored change's: the use case checks them.
  app.delete(
    '/flags/:flagId/scheduled-changes/:changeId',
    describe('Cancel a pending scheduled change', {
      params: ChangeParams,
      problems: [409],
      config: access('editor', FLAG),
    }),
    async (request, reply) => {
      await services.scheduledChanges.cancel(
        actorOf(request),
        request.params.flagId,
        request.params.changeId,
      );
      return sendNoContent(reply);
    },
  );
};
