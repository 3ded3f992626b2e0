import { CreateMetricSchema, PatchMetricSchema } from '../../domain/schemas/metric-input.ts';
import { MetricSchema } from '../../domain/schemas/metric-schema.ts';
import type { Services } from '../../services/services.ts';
import { pageOf, sendDeleted, sendListed, sendMade, sendRead, sendWritten } from '../request-helpers.ts';
import { access, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Key, ProjectParams, paged } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Metrics']);

const MetricParams = Closed({ ...ProjectParams.properties, metricKey: Key });
// Metrics change no evaluation: an editor of the project writes them, in no environment in particular.
const READ = access('viewer', PROJECT);
const WRITE = access('editor', PROJECT);

type Plugin = RoutesPlugin<{ services: Services }>;
type App = Parameters<Plugin>[0];

/** Metric definitions per project (docs/measurement.md), audited like segments. */
export const metricRoutes: Plugin = async (app, { services }) => {
  metricReads(app, services);
  metricWrites(app, services);
};

function metricReads(app: App, services: Services): void {
  app.get(
    '/projects/:projectId/metrics',
    describe("List a project's metrics (key order)", {
      params: ProjectParams,
      ...paged(MetricSchema),
      config: READ,
    }),
    async (request, reply) =>
      sendListed(request, reply, (actor) =>
        services.metrics.list(actor, request.params.projectId, pageOf(request.query)),
      ),
  );

  app.get(
    '/projects/:projectId/metrics/:metricKey',
    describe('Get a metric', { params: MetricParams, 200: MetricSchema, config: READ }),
    async (request, reply) =>
      sendRead(request, reply, (actor) =>
        services.metrics.get(actor, request.params.projectId, request.params.metricKey),
      ),
  );
}

function metricWrites(app: App, services: Services): void {
  app.post(
    '/projects/:projectId/metrics',
    describe('Create a metric', {
      params: ProjectParams,
      body: CreateMetricSchema,
      201: MetricSchema,
      problems: [409],
      config: WRITE,
    }),
    async (request, reply) =>
      sendMade(
        request,
        reply,
        (actor) => services.metrics.create(actor, request.params.projectId, request.body),
        (metric) => `/v1/projects/${request.params.projectId}/metrics/${metric.key}`,
      ),
  );

  app.patch(
    '/projects/:projectId/metrics/:metricKey',
    describe('Change a metric (JSON merge patch)', {
      params: MetricParams,
      body: PatchMetricSchema,
      200: MetricSchema,
      problems: [412],
      config: WRITE,
    }),
    async (request, reply) =>
      sendWritten(request, reply, (actor, { ifMatch }) =>
        services.metrics.patch(
          actor,
          request.params.projectId,
          request.params.metricKey,
          request.body,
          ifMatch,
        ),
      ),
  );

  app.delete(
    '/projects/:projectId/metrics/:metricKey',
    describe('Delete a metric', { params: MetricParams, problems: [412], config: WRITE }),
    async (request, reply) =>
      sendDeleted(request, reply, (actor, { ifMatch }) =>
        services.metrics.delete(actor, request.params.projectId, request.params.metricKey, ifMatch),
      ),
  );
}
