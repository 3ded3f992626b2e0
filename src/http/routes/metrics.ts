import { CreateMetricSchema, PatchMetricSchema } from '../../domain/schemas/metric-input.ts';
import { MetricSchema } from '../../domain/schemas/metric-schema.ts';
import type { Services } from '../../services/services.ts';
import { keyedRoutes } from '../keyed-routes.ts';
import { access, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import type { RoutesPlugin } from '../type-provider.ts';

/** Metric definitions per project (docs/measurement.md), audited like segments. */
export const metricRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  keyedRoutes(app, {
    describe: describeRoutes(['Metrics']),
    collection: '/projects/:projectId/metrics',
    key: 'metricKey',
    schema: MetricSchema,
    bodies: { create: CreateMetricSchema, patch: PatchMetricSchema },
    listSummary: "List a project's metrics (key order)",
    summaries: {
      get: 'Get a metric',
      create: 'Create a metric',
      patch: 'Change a metric (JSON merge patch)',
      delete: 'Delete a metric',
    },
    // Metrics change no evaluation: an editor of the project writes them, in no environment in particular.
    rules: { read: access('viewer', PROJECT), write: access('editor', PROJECT) },
    service: services.metrics,
  });
};
