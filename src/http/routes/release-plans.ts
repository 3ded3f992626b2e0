import { Type } from 'typebox';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import {
  CreateReleasePlanSchema,
  CreateReleaseTemplateSchema,
  PatchReleaseTemplateSchema,
  ReleasePlanSchema,
  ReleaseStopSchema,
  ReleaseTemplateSchema,
} from '../../domain/schemas/release-schemas.ts';
import type { Services } from '../../services/services.ts';
import { keyedRoutes } from '../keyed-routes.ts';
import {
  actorOf,
  sendCreated,
  sendGated,
  sendNoContent,
  sendRead,
  sendResource,
  sendWritten,
} from '../request-helpers.ts';
import { access, PATH_ENVIRONMENT, PROJECT } from '../route-access.ts';
import { routeGroups } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Key, ProjectParams } from '../schemas/common.ts';
import type { RoutesApp } from '../type-provider.ts';

const describe = describeRoutes(['Release plans']);

const PlanParams = Closed({ ...ProjectParams.properties, flagKey: Key, envKey: Key });
const PLAN = '/projects/:projectId/flags/:flagKey/environments/:envKey/release-plan';

/** Release templates and plans (docs/releases.md). */
export const releasePlanRoutes = routeGroups<Services>(templateRoutes, planRoutes, planMoves);

/** Release templates: a project's keyed resource, like metrics. */
function templateRoutes(app: RoutesApp, services: Services): void {
  keyedRoutes(app, {
    describe,
    collection: '/projects/:projectId/release-templates',
    key: 'templateKey',
    schema: ReleaseTemplateSchema,
    bodies: { create: CreateReleaseTemplateSchema, patch: PatchReleaseTemplateSchema },
    listSummary: "List a project's release templates (key order)",
    summaries: {
      get: 'Get a release template',
      create: 'Create a release template',
      patch: 'Change a release template (the steps given replace its own)',
      delete: 'Delete a release template',
    },
    // Templates change no evaluation: an editor of the project writes them, in no environment in particular.
    rules: { read: access('viewer', PROJECT), write: access('editor', PROJECT) },
    service: services.releaseTemplates,
  });
}

// A plan acts in its one environment: editors who reach it write, viewers read.
const PLAN_READ = access('viewer', PROJECT, { environments: PATH_ENVIRONMENT });
const PLAN_WRITE = access('editor', PROJECT, { environments: PATH_ENVIRONMENT });

function planRoutes(app: RoutesApp, services: Services): void {
  app.get(
    PLAN,
    describe("Get a flag's release plan in an environment: its milestones, guards' readings and timeline", {
      params: PlanParams,
      200: ReleasePlanSchema,
      config: PLAN_READ,
    }),
    async (request, reply) => {
      const { projectId, flagKey, envKey } = request.params;
      return sendRead(request, reply, (actor) => services.releases.get(actor, projectId, flagKey, envKey));
    },
  );
  app.post(
    PLAN,
    describe('Plan a release, from a template or inline milestones (a draft until started)', {
      params: PlanParams,
      body: CreateReleasePlanSchema,
      201: ReleasePlanSchema,
      problems: [409],
      config: PLAN_WRITE,
    }),
    async (request, reply) => {
      const { projectId, flagKey, envKey } = request.params;
      const plan = await services.releases.create(actorOf(request), projectId, flagKey, envKey, request.body);
      return sendCreated(
        reply,
        `/v1${PLAN.replace(':projectId', projectId).replace(':flagKey', flagKey).replace(':envKey', envKey)}`,
        plan,
      );
    },
  );
  app.delete(
    PLAN,
    describe('Delete a release plan that is not running', {
      params: PlanParams,
      problems: [409],
      config: PLAN_WRITE,
    }),
    async (request, reply) => {
      const { projectId, flagKey, envKey } = request.params;
      await services.releases.delete(actorOf(request), projectId, flagKey, envKey);
      return sendNoContent(reply);
    },
  );
  app.post(
    `${PLAN}/start`,
    describe('Start a release plan: its first milestone now, through the approval gate once', {
      description:
        'Where the environment requires approvals, a non-admin’s start is a change request of kind `release.start` (202); once approved, the plan’s steps need no further approval.',
      params: PlanParams,
      200: ReleasePlanSchema,
      202: ChangeRequestSchema,
      problems: [409],
      config: PLAN_WRITE,
    }),
    async (request, reply) => {
      const { projectId, flagKey, envKey } = request.params;
      const outcome = await services.releases.start(actorOf(request), projectId, flagKey, envKey);
      return sendGated(reply, outcome, (plan) => sendResource(reply, plan));
    },
  );
}

/** Pause, resume, proceed, roll back: each audited, as the person who asks. */
function planMoves(app: RoutesApp, services: Services): void {
  const moves = {
    pause: { summary: 'Pause a running plan where it is', body: true },
    resume: { summary: 'Resume a paused plan (its milestone’s hold starts over)', body: false },
    proceed: { summary: 'Move a plan to its next milestone now', body: false },
    rollback: { summary: 'Roll a plan back: the environment serves the control again', body: true },
  } as const;
  for (const [move, { summary, body }] of Object.entries(moves) as [
    keyof typeof moves,
    (typeof moves)[keyof typeof moves],
  ][]) {
    app.post(
      `${PLAN}/${move}`,
      describe(summary, {
        params: PlanParams,
        ...(body ? { body: Type.Optional(ReleaseStopSchema) } : {}),
        200: ReleasePlanSchema,
        problems: [409],
        config: PLAN_WRITE,
      }),
      async (request, reply) => {
        const { projectId, flagKey, envKey } = request.params;
        const reason = (request.body as { reason?: string } | undefined)?.reason;
        return sendWritten(request, reply, (actor) => {
          const releases = services.releases;
          if (move === 'pause') return releases.pause(actor, projectId, flagKey, envKey, reason);
          if (move === 'resume') return releases.resume(actor, projectId, flagKey, envKey);
          if (move === 'proceed') return releases.proceed(actor, projectId, flagKey, envKey);
          return releases.rollback(actor, projectId, flagKey, envKey, reason);
        });
      },
    );
  }
}
