import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Registry } from 'prom-client';
import type { Admission } from '../access/admission.ts';
import type { TrustProxy } from '../config.ts';
import { MAX_PATH_PART_LENGTH } from '../domain/keys.ts';
import type { EvaluationCounts } from '../observability/evaluation-counts.ts';
import type { TelemetryOptions } from '../observability/telemetry.ts';
import type { ProjectChanges } from '../plane/project-changes.ts';
import type { Realtime } from '../realtime/realtime.ts';
import type { StreamLimits } from '../realtime/stream-limits.ts';
import type { Services } from '../services/services.ts';
import { registerApiDocs } from './api-docs.ts';
import { registerJsonBodies } from './json-body.ts';
import { LazySchemas } from './lazy-schemas.ts';
import { lazyChildLogger, RequestLogController, withRedactedUrls } from './logging.ts';
import { registerAccessControl } from './plugins/access-control.ts';
import type { Authenticator } from './plugins/authentication.ts';
import { registerCors } from './plugins/cors.ts';
import { registerDashboard } from './plugins/dashboard.ts';
import { clientError, frameworkError, registerErrorHandling } from './plugins/errors.ts';
import { registerGuard } from './plugins/guard.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { parseQueryString } from './query-string.ts';
import { requestIds } from './request-ids.ts';
import { registerArrivals, registerPreflightRoute } from './route-arrival.ts';
import { accountRoutes } from './routes/accounts.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { auditLogRoutes } from './routes/audit-log.ts';
import { authRoutes } from './routes/auth.ts';
import { changeRequestRoutes } from './routes/change-requests.ts';
import { codeReferenceRoutes } from './routes/code-references.ts';
import { edgeUpstreamRoutes } from './routes/edge-upstream.ts';
import { environmentRoutes } from './routes/environments.ts';
import { evaluationRoutes } from './routes/evaluation.ts';
import { eventRoutes } from './routes/events.ts';
import { experimentRoutes } from './routes/experiments.ts';
import { explainRoutes } from './routes/explain.ts';
import { registerFilesSchema } from './routes/files-schema.ts';
import { flagBatchRoutes } from './routes/flag-batches.ts';
import { flagdRoutes } from './routes/flagd.ts';
import { flagRoutes } from './routes/flags.ts';
import { healthRoutes } from './routes/health.ts';
import { insightsRoutes } from './routes/insights.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { metricRoutes } from './routes/metrics.ts';
import { ofrepRoutes } from './routes/ofrep.ts';
import { eventStreamRoutes } from './routes/ofrep-event-streams.ts';
import { projectRoutes } from './routes/projects.ts';
import { releasePlanRoutes } from './routes/release-plans.ts';
import { scheduledChangeRoutes } from './routes/scheduled-changes.ts';
import { scimRoutes } from './routes/scim.ts';
import { segmentRoutes } from './routes/segments.ts';
import { singleSignOnRoutes } from './routes/single-sign-on.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { sessionAuthenticator } from './session-cookie.ts';
import type { RequestTypeProvider } from './type-provider.ts';
import { validatorCompiler } from './validation.ts';

/** What the app serves, built by the composition root (main.ts): the app builds none of it. */
export interface AppOptions {
  readonly services: Services;
  /** Admission: credentials, budgets and the access check of every guarded route. */
  readonly admission: Admission;
  /** This node's OFREP event streams. */
  readonly realtime: Realtime;
  /** The plane's changes, for a bulk evaluation told of a newer revision. */
  readonly changes: ProjectChanges;
  /** The evaluations served, by reason, for /metrics. */
  readonly evaluationCounts: EvaluationCounts;
  readonly logger?: FastifyServerOptions['logger'];
  /** FLAGSTAFF_CORS_ORIGINS: origins that may call the evaluation and OFREP routes; default any (`*`). */
  readonly corsOrigins?: readonly string[];
  /** Ways to authenticate tried after API keys and the dashboard's session cookie. */
  readonly authenticators?: readonly Authenticator[];
  /** FLAGSTAFF_TRUST_PROXY: which proxies' X-Forwarded-For names the client address (limits, logs). */
  readonly trustProxy?: TrustProxy;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and service name: trace requests and evaluations; unset, OpenTelemetry is not loaded. */
  readonly telemetry?: TelemetryOptions | undefined;
  /** The built dashboard to serve at `/`; default dashboard/dist (tests build their own). */
  readonly dashboardRoot?: string;
  /** FLAGSTAFF_STREAMS_PER_NODE / _PER_KEY, already kept under the descriptor limit; default from it. */
  readonly streamLimits?: StreamLimits;
  /** FLAGSTAFF_PUBLIC_URL: the origin of URLs handed out (event streams); unset, the listening address. */
  readonly publicUrl?: string | undefined;
  /**
   * `flagstaff edge` (SPEC §14): only what applications call is served (evaluation, OFREP, flagd
   * sync and export, events, and the upstream stream for edges chained behind); every other route
   * answers 404 naming the upstream. No dashboard, no sign-in.
   */
  readonly edge?: { readonly upstreamUrl: string; readonly metrics?: (registry: Registry) => void };
}

const BODY_LIMIT = 1024 * 1024;

/** Fastify's form of FLAGSTAFF_TRUST_PROXY: so many hops from the socket, or these addresses. */
function trustProxyOption(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust === false ? false : [...trust];
}

/** The /v1 resources (guarded), sign-in, SCIM and OpenFeature's routes. */
async function registerRoutes(app: FastifyInstance, options: AppOptions): Promise<void> {
  const { services, realtime } = options;
  await app.register(healthRoutes, { services });
  if (options.edge !== undefined) return registerEdgeRoutes(app, options);
  await app.register(
    async (v1) => {
      registerGuard(v1);
      for (const routes of [
        projectRoutes,
        environmentRoutes,
        flagRoutes,
        flagBatchRoutes,
        segmentRoutes,
        apiKeyRoutes,
        auditLogRoutes,
        evaluationRoutes,
        flagdRoutes,
        explainRoutes,
        accountRoutes,
        webhookRoutes,
        scheduledChangeRoutes,
        changeRequestRoutes,
        insightsRoutes,
        eventRoutes,
        metricRoutes,
        experimentRoutes,
        releasePlanRoutes,
        codeReferenceRoutes,
      ]) {
        await v1.register(routes, { services });
      }
      await v1.register(edgeUpstreamRoutes, { services, realtime });
    },
    { prefix: '/v1' },
  );
  // MCP for AI assistants: its own path, guarded like /v1; each tool call goes through /v1 again.
  await app.register(async (scope) => {
    registerGuard(scope);
    await mcpRoutes(scope, { root: app, publicUrl: options.publicUrl });
  });
  // Signing in happens before there is anything to authenticate with: a scope of its own.
  await app.register(authRoutes, { services, prefix: '/v1' });
  await app.register(singleSignOnRoutes, { services, prefix: '/v1' });
  await app.register(scimRoutes, { services, prefix: '/scim/v2' });
  await registerOfrep(app, options);
}

/** What an edge serves: the routes applications call, from the node's own plugins. */
async function registerEdgeRoutes(app: FastifyInstance, options: AppOptions): Promise<void> {
  const { services, realtime } = options;
  await app.register(
    async (v1) => {
      registerGuard(v1);
      for (const routes of [evaluationRoutes, flagdRoutes, eventRoutes])
        await v1.register(routes, { services });
      await v1.register(edgeUpstreamRoutes, { services, realtime });
    },
    { prefix: '/v1' },
  );
  await registerOfrep(app, options);
}

/** OFREP (docs/product.md §9), its evaluations and their event stream: served by a node and an edge alike. */
async function registerOfrep(app: FastifyInstance, options: AppOptions): Promise<void> {
  const { services, realtime } = options;
  await app.register(ofrepRoutes, {
    services,
    realtime,
    changes: options.changes,
    publicUrl: options.publicUrl,
    prefix: '/ofrep/v1',
  });
  await app.register(eventStreamRoutes, { services, realtime, limits: options.streamLimits });
}

/** The whole HTTP API, without listening: tests call `inject()`, main.ts calls `listen()`. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { services } = options;
  const schemas = new LazySchemas();
  const app = Fastify({
    logger: withRedactedUrls(options.logger),
    logController: new RequestLogController(),
    childLoggerFactory: lazyChildLogger,
    // Errors before routing (a malformed URL, headers over 16 KiB) answer problem+json too.
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    bodyLimit: BODY_LIMIT,
    genReqId: requestIds(),
    requestIdHeader: false,
    schemaController: schemas.schemaController(),
    // While draining, requests already on open connections are served (with Connection: close),
    // not refused: clients sent them before the node stopped (docs/decisions/1731).
    return503OnClosing: false,
    trustProxy: trustProxyOption(options.trustProxy ?? false),
    // A trailing slash should not turn a known route into a 404.
    routerOptions: {
      ignoreTrailingSlash: true,
      querystringParser: parseQueryString,
      maxParamLength: MAX_PATH_PART_LENGTH,
    },
  }).withTypeProvider<RequestTypeProvider>();

  app.setValidatorCompiler(schemas.validatorCompiler(validatorCompiler));
  schemas.belongTo(app);
  registerErrorHandling(app, options.edge?.upstreamUrl);
  if (options.telemetry !== undefined) {
    const { registerTelemetry } = await import('../observability/telemetry.ts');
    await registerTelemetry(app, services.evaluation, options.telemetry);
  }
  // The headers every response carries, set on arrival by each route's first hook (errors keep
  // them); each hook and each promise is a measurable share of an evaluation (decisions 0207, 1792).
  registerArrivals(app, registerCors(app, options.corsOrigins ?? ['*']));
  const registry = registerMetrics(app, services, options.evaluationCounts);
  options.edge?.metrics?.(registry);
  registerPreflightRoute(app);
  registerJsonBodies(app, BODY_LIMIT);
  // The dashboard's session cookie: a second way to authenticate /v1, tried after API keys.
  registerAccessControl(app, options.admission, [
    sessionAuthenticator(services.sessions),
    ...(options.authenticators ?? []),
  ]);

  await registerApiDocs(app);
  await registerFilesSchema(app);

  await registerRoutes(app, options);
  if (options.edge === undefined) await registerDashboard(app, options.dashboardRoot);
  return app;
}
