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
import {
  actorOf,
  pageOf,
  sendDeleted,
  sendGatedWrite,
  sendListed,
  sendMade,
  sendRead,
  sendWritten,
} from '../request-helpers.ts';
import { access, experimentEnvironment, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Key, PageQuery, ProjectParams } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Experiments']);

const ExperimentParams = Closed({ ...ProjectParams.properties, experimentKey: Key });
// Drafts, starts and stops: an editor of the project (the service checks the experiment's environment).
const READ = access('viewer', PROJECT);
const WRITE = access('editor', PROJECT);

type Plugin = RoutesPlugin<{ services: Services }>;
type App = Parameters<Plugin>[0];

/** Experiments per project (docs/measurement.md): drafts audited like metrics, starts and stops gated. */
export const experimentRoutes: Plugin = async (app, { services }) => {
  experimentReads(app, services);
  experimentWrites(app, services);
  experimentRuns(app, services);
};

function experimentReads(app: App, services: Services): void {
  app.get(
    '/projects/:projectId/experiments',
    describe("List a project's experiments (key order)", {
      params: ProjectParams,
      querystring: Closed({ status: Type.Optional(ExperimentStatusSchema), ...PageQuery }),
      200: Type.Array(ExperimentSchema),
      config: READ,
    }),
    async (request, reply) =>
      sendListed(request, reply, (actor) =>
        services.experiments.list(
          actor,
          request.params.projectId,
          { status: request.query.status },
          pageOf(request.query),
        ),
      ),
  );

  app.get(
    '/projects/:projectId/experiments/:experimentKey',
    describe('Get an experiment', { params: ExperimentParams, 200: ExperimentSchema, config: READ }),
    async (request, reply) =>
      sendRead(request, reply, (actor) =>
        services.experiments.get(actor, request.params.projectId, request.params.experimentKey),
      ),
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

function experimentWrites(app: App, services: Services): void {
  app.post(
    '/projects/:projectId/experiments',
    describe('Create an experiment (a draft)', {
      params: ProjectParams,
      body: CreateExperimentSchema,
      201: ExperimentSchema,
      problems: [409],
      config: access('editor', PROJECT, { body: experimentEnvironment }),
    }),
    async (request, reply) =>
      sendMade(
        request,
        reply,
        (actor) => services.experiments.create(actor, request.params.projectId, request.body),
        (experiment) => `/v1/projects/${request.params.projectId}/experiments/${experiment.key}`,
      ),
  );

  app.patch(
    '/projects/:projectId/experiments/:experimentKey',
    describe('Change a draft experiment (JSON merge patch)', {
      params: ExperimentParams,
      body: PatchExperimentSchema,
      200: ExperimentSchema,
      problems: [409, 412],
      config: WRITE,
    }),
    async (request, reply) =>
      sendWritten(request, reply, (actor, { ifMatch }) =>
        services.experiments.patch(
          actor,
          request.params.projectId,
          request.params.experimentKey,
          request.body,
          ifMatch,
        ),
      ),
  );

  app.delete(
    '/projects/:projectId/experiments/:experimentKey',
    describe('Delete a draft experiment', { params: ExperimentParams, problems: [409, 412], config: WRITE }),
    async (request, reply) =>
      sendDeleted(request, reply, (actor, { ifMatch }) =>
        services.experiments.delete(actor, request.params.projectId, request.params.experimentKey, ifMatch),
      ),
  );
}

function experimentRuns(app: App, services: Services): void {
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
