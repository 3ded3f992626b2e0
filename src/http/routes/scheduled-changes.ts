import { Type } from 'typebox';
import { SCHEDULED_CHANGE_STATUSES, type ScheduledChange } from '../../domain/scheduled-change.ts';
import { ChangeRequestSchema, ScheduledChangeSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import { type FlagNaming, flagNamings } from '../flag-namings.ts';
import { actorOf, sendGated, sendNoContent } from '../request-helpers.ts';
import { access, scheduledPatchEnvironments } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Description, Key, NAMED_BY_KEY, OneOf, Timestamp } from '../schemas/common.ts';
import { PatchFlagSchema } from '../schemas/flags.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Scheduled changes']);

type ScheduledChangeUseCases = Pick<Services, 'scheduledChanges' | 'flags'>;

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

export const scheduledChangeRoutes: RoutesPlugin<{ services: ScheduledChangeUseCases }> = async (
  app,
  { services },
) => {
  for (const naming of flagNamings(services.flags)) {
    flagScheduling(app, services, naming);
    scheduledChange(app, services, naming);
  }
};

/** Scheduling a change to the flag, and the list of its scheduled changes. */
function flagScheduling(app: RoutesApp, services: ScheduledChangeUseCases, naming: FlagNaming): void {
  const { url, target, idOf } = naming;
  const byKey = naming.byKey ? ` ${NAMED_BY_KEY}` : '';
  app.post(
    `${url}/scheduled-changes`,
    describe('Schedule a change to a flag', {
      description: `The patch is what PATCH /v1/flags/{flagId} accepts; its environment fields apply to \`environment\`. It is checked now and applied at \`at\` (within a second) as its author; if it no longer validates then, it is marked failed with the reason and nothing is written.${byKey}`,
      params: naming.params,
      body: Closed({
        at: Timestamp,
        environment: Key,
        patch: PatchFlagSchema,
        comment: Type.Optional(Description),
      }),
      201: ScheduledChangeSchema,
      202: ChangeRequestSchema,
      config: access('editor', target, { body: scheduledPatchEnvironments }),
    }),
    async (request, reply) => {
      const outcome = await services.scheduledChanges.schedule(actorOf(request), await idOf(request), {
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
    `${url}/scheduled-changes`,
    describe("List a flag's scheduled changes, earliest first", {
      ...(byKey === '' ? {} : { description: NAMED_BY_KEY }),
      params: naming.params,
      querystring: Closed({ status: Type.Optional(OneOf(SCHEDULED_CHANGE_STATUSES)) }),
      200: Type.Array(ScheduledChangeSchema),
      config: access('viewer', target),
    }),
    async (request) => {
      const changes = await services.scheduledChanges.list(
        actorOf(request),
        await idOf(request),
        request.query.status,
      );
      return changes.map(wire);
    },
  );
}

/** One scheduled change of the flag: read, or cancelled. */
function scheduledChange(app: RoutesApp, services: ScheduledChangeUseCases, naming: FlagNaming): void {
  const { url, target, idOf } = naming;
  const changeParams = Closed({ ...naming.params.properties, changeId: Type.String() });
  app.get(
    `${url}/scheduled-changes/:changeId`,
    describe('Get a scheduled change', {
      params: changeParams,
      200: ScheduledChangeSchema,
      config: access('viewer', target),
    }),
    async (request) =>
      wire(
        await services.scheduledChanges.get(
          actorOf(request),
          await idOf(request),
          (request.params as { changeId: string }).changeId,
        ),
      ),
  );

  // Which environments a cancel reaches is the stored change's: the use case checks them.
  app.delete(
    `${url}/scheduled-changes/:changeId`,
    describe('Cancel a pending scheduled change', {
      params: changeParams,
      problems: [409],
      config: access('editor', target),
    }),
    async (request, reply) => {
      await services.scheduledChanges.cancel(
        actorOf(request),
        await idOf(request),
        (request.params as { changeId: string }).changeId,
      );
      return sendNoContent(reply);
    },
  );
}
