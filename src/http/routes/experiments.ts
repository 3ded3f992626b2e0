import { Type } from 'typebox';
import {
  CreateExperimentSchema,
  ExperimentStatusSchema,
  PatchExperimentSchema,
} from '../../domain/schemas/experiment-input.ts';
import { ExperimentResultsSchema } from '../../domain/schemas/experiment-results.ts';
import { ExperimentSchema } from '../../domain/schemas/experiment-schema.ts';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { Services } from '../../services/services.ts';
import { keyedCreateAndItemRoutes, keyedParams } from '../keyed-routes.ts';
import { actorOf, pageOf, sendGatedWrite } from '../request-helpers.ts';
import { access, experimentEnvironment, PROJECT } from '../route-access.ts';
import { listRoute, routeGroups } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, PageQuery, ProjectParams } from '../schemas/common.ts';
import type { RoutesApp } from '../type-provider.ts';

const describe = describeRoutes(['Experiments']);

const ExperimentParams = keyedParams('experimentKey');
// Drafts, starts and stops: an editor of the project (the service checks the experiment's environment).
const READ = access('viewer', PROJECT);
const WRITE = access('editor', PROJECT);

/** Experiments per project (docs/measurement.md): drafts audited like metrics, starts and stops gated. */
export const experimentRoutes = routeGroups<Services>(experimentReads, experimentDrafts, experimentRuns);

function experimentReads(app: RoutesApp, services: Services): void {
  listRoute(
    app,
    '/projects/:projectId/experiments',
    describe("List a project's experiments (key order)", {
      params: ProjectParams,
      querystring: Closed({ status: Type.Optional(ExperimentStatusSchema), ...PageQuery }),
      200: Type.Array(ExperimentSchema),
      config: READ,
    }),
    (actor, { params, query }) =>
      services.experiments.list(actor, params.projectId, { status: query.status }, pageOf(query)),
  );

  app.get(
    '/projects/:projectId/experiments/:experimentKey/results',
    describe("An experiment's results: per metric and variant, the effect over time, the SRM check", {
      params: ExperimentParams,
      200: ExperimentResultsSchema,
      config: READ,
    }),
    async (request) =>
      services.experimentResults.results(
        actorOf(request),
        request.params.projectId,
        request.params.experimentKey,
      ),
  );
}

/** Drafts: a project's keyed resource, like metrics; creating one names its environment. */
function experimentDrafts(app: RoutesApp, services: Services): void {
  keyedCreateAndItemRoutes(app, {
    describe,
    collection: '/projects/:projectId/experiments',
    key: 'experimentKey',
    schema: ExperimentSchema,
    bodies: { create: CreateExperimentSchema, patch: PatchExperimentSchema },
    summaries: {
      get: 'Get an experiment',
      create: 'Create an experiment (a draft)',
      patch: 'Change a draft experiment (JSON merge patch)',
      delete: 'Delete a draft experiment',
    },
    rules: { read: READ, write: WRITE, create: access('editor', PROJECT, { body: experimentEnvironment }) },
    // Only a draft changes or goes.
    conflicts: true,
    service: services.experiments,
  });
}

function experimentRuns(app: RoutesApp, services: Services): void {
  for (const [verb, run] of [
    ['start', 'Start a draft experiment'],
    ['stop', 'Stop a running experiment'],
  ] as const) {
    app.post(
      `/projects/:projectId/experiments/:experimentKey/${verb}`,
      describe(run, {
        description:
          'Passes the approval gate: where the environment requires approvals, a non-admin gets 202 and a change request.',
        params: ExperimentParams,
        200: ExperimentSchema,
        202: ChangeRequestSchema,
        problems: [409, 412],
        config: WRITE,
      }),
      async (request, reply) =>
        sendGatedWrite(request, reply, (actor, { ifMatch }) =>
          services.experiments[verb](actor, request.params.projectId, request.params.experimentKey, {
            ifMatch,
          }),
        ),
    );
  }
}
