import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { EvaluationCounts } from '../../observability/evaluation-counts.ts';
import { type DurationSeries, FastHistogram } from '../../observability/request-durations.ts';
import type { Services } from '../../services/services.ts';
import { appendHooks } from '../route-arrival.ts';

/** Seconds; finer than prom-client's default at the low end, where evaluation requests live. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What a route label says for requests that matched no route (404s): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** A route's duration series for a method and status code. */
type RouteDurations = (method: string, statusCode: number) => DurationSeries;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Times an answer that no route gives (a 404, a malformed URL), as its status is set: the
     * answers of routes are timed by their own hook (`registerMetrics`). Absent without metrics.
     */
    observeUnmatched?: (request: FastifyRequest, reply: FastifyReply) => void;
  }
}

type MetricServices = Pick<Services, 'projects'> & Partial<Pick<Services, 'webhooks'>>;
/** A project's key for a label, from its id. */
type ProjectKeyOf = (projectId: string) => Promise<string>;

/**
 * Serves `GET /metrics` (Prometheus text, no API key: see docs/decisions/0301-metrics-endpoint.md)
 * from a registry of this app's own, so several apps in one process never share counts:
 * - `flagstaff_evaluations_total{project, environment, reason}`, read on scrape from the
 *   evaluation service's plain integer counts;
 * - `flagstaff_http_request_duration_seconds{route, method, status_class}`, where `route` is the
 *   route pattern (`/v1/flags/:flagKey`), never the URL;
 * - prom-client's default process and Node.js metrics.
 * No label takes a flag key, a user value or a URL, so the series do not grow with flags or users.
 * Register it on the root instance before any route, so that every route gets its hook.
 */
export function registerMetrics(
  app: FastifyInstance,
  services: MetricServices,
  /** The /metrics tally, one observer of the evaluations served (decision 1772), made where the node is composed. */
  counts: EvaluationCounts,
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const projectKeyOf = projectKeys(services);
  registerEvaluationCounts(registry, counts, projectKeyOf);
  if (services.webhooks !== undefined) registerWebhookBacklogs(registry, services.webhooks, projectKeyOf);
  registerRequestDurations(app, registry);
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
  return registry;
}

/** Project keys never change (a project can only be renamed), so an id → key cache is never stale. */
function projectKeys(services: MetricServices): ProjectKeyOf {
  const projectKeys = new Map<string, string>();
  return async (projectId) => {
    const known = projectKeys.get(projectId);
    if (known !== undefined) return known;
    // A deleted project keeps its counts under its id; so does any project while the database is
    // down, so that /metrics still answers when it matters most.
    const key = await services.projects.keyOf(projectId).catch(() => undefined);
    if (key === undefined) return projectId;
    projectKeys.set(projectId, key);
    return key;
  };
}

function registerEvaluationCounts(registry: Registry, counts: EvaluationCounts, projectKeyOf: ProjectKeyOf) {
  new Counter({
    name: 'flagstaff_evaluations_total',
    help: 'Flag evaluations served, by project key, environment key and reason.',
    labelNames: ['project', 'environment', 'reason'] as const,
    registers: [registry],
    async collect() {
      const rows = counts.rows();
      const keys = await Promise.all(rows.map((row) => projectKeyOf(row.projectId)));
      // Totals since start, set in one synchronous step so a concurrent scrape never sees half of them.
      this.reset();
      rows.forEach((row, i) => {
        this.inc({ project: keys[i], environment: row.environment, reason: row.reason }, row.count);
      });
    },
  });
}

/**
 * Read from the outbox on scrape: one grouped query over the queue index, shared by both
 * gauges (prom-client collects them concurrently) (docs/decisions/1760).
 */
function registerWebhookBacklogs(
  registry: Registry,
  webhooks: Services['webhooks'],
  projectKeyOf: ProjectKeyOf,
): void {
  const labelNames = ['project', 'webhook'] as const;
  let refreshing: Promise<void> | undefined;
  const refresh = () => {
    refreshing ??= (async () => {
      // While the database is down the last values stay: /metrics still answers.
      const rows = await webhooks.backlogs().catch(() => undefined);
      if (rows === undefined) return;
      const keys = await Promise.all(rows.map((row) => projectKeyOf(row.projectId)));
      const now = Date.now();
      backlog.reset();
      oldest.reset();
      rows.forEach((row, i) => {
        const labels = { project: keys[i], webhook: row.webhookId };
        backlog.set(labels, row.pending);
        const at = row.oldestPendingAt === null ? now : Date.parse(row.oldestPendingAt);
        oldest.set(labels, Math.max(0, (now - at) / 1000));
      });
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };
  const backlog = new Gauge({
    name: 'flagstaff_webhook_backlog',
    help: 'Webhook deliveries queued and not delivered yet, by project key and webhook id.',
    labelNames,
    registers: [registry],
    collect: refresh,
  });
  const oldest = new Gauge({
    name: 'flagstaff_webhook_backlog_oldest_seconds',
    help: 'Age of the oldest undelivered webhook delivery, by project key and webhook id.',
    labelNames,
    registers: [registry],
    collect: refresh,
  });
}

/** One series per (method, route, status class): routes and methods are finite. */
function routeDurations(duration: FastHistogram, route: string): RouteDurations {
  const byMethod = new Map<string, (DurationSeries | undefined)[]>();
  return (method, statusCode) => {
    let byClass = byMethod.get(method);
    if (byClass === undefined) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const index = Math.floor(statusCode / 100);
    let series = byClass[index];
    if (series === undefined) {
      const statusClass = `${index}xx`;
      series = duration.series(`${method} ${statusClass} ${route}`, () => ({
        route,
        method,
        status_class: statusClass,
      }));
      byClass[index] = series;
    }
    return series;
  };
}

function registerRequestDurations(app: FastifyInstance, registry: Registry): void {
  const duration = new FastHistogram({
    name: 'flagstaff_http_request_duration_seconds',
    help: 'HTTP request duration from arrival to response sent, by route pattern, method and status class.',
    buckets: DURATION_BUCKETS,
  });
  // Exposed by the registry like its own histograms; observed without prom-client's per-call label work.
  registry.registerMetric(duration as unknown as Parameters<Registry['registerMetric']>[0]);
  // A callback hook per route, holding the route's series: nothing read from the request but its
  // method (request.routeOptions builds an object on every read), no key built per answer, no
  // promise (decisions 0207, 1793). Answers that no route gives are timed by `observeUnmatched`.
  app.addHook('onRoute', (route) => {
    const durations = routeDurations(duration, route.url);
    const observeDuration: onResponseHookHandler = (request, reply, done) => {
      durations(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
      done();
    };
    appendHooks(route, 'onResponse', observeDuration);
  });
  const unmatched = routeDurations(duration, UNMATCHED_ROUTE);
  app.decorate('observeUnmatched', (request: FastifyRequest, reply: FastifyReply) => {
    unmatched(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
  });
}
