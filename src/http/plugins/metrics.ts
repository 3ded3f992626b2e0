import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { EvaluationCounts } from '../../observability/evaluation-counts.ts';
import { FastHistogram } from '../../observability/request-durations.ts';
import type { Services } from '../../services/services.ts';

/** Seconds; finer than prom-client's default at the low end, where evaluation requests live. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What a route label says for requests that matched no route (404s): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Serves `GET /metrics` (Prometheus text, no API key: see docs/decisions/0301-metrics-endpoint.md)
 * from a registry of this app's own, so several apps in one process never share counts:
 * - `flagstaff_evaluations_total{project, environment, reason}`, read on scrape from the
 *   evaluation service's plain integer counts;
 * - `flagstaff_http_request_duration_seconds{route, method, status_class}`, where `route` is the
 *   route pattern (`/v1/flags/:flagKey`), never the URL;
 * - prom-client's default process and Node.js metrics.
 * No label takes a flag key, a user value or a URL, so the series do not grow with flags or users.
 * Register it on the root instance before the routes, so that its hook sees every request.
 */
export function registerMetrics(
  app: FastifyInstance,
  services: Pick<Services, 'evaluation' | 'projects'> & Partial<Pick<Services, 'webhooks'>>,
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // Project keys never change (a project can only be renamed), so an id → key cache is never stale.
  const projectKeys = new Map<string, string>();
  const projectKeyOf = async (projectId: string): Promise<string> => {
    const known = projectKeys.get(projectId);
    if (known !== undefined) return known;
    // A deleted project keeps its counts under its id; so does any project while the database is
    // down, so that /metrics still answers when it matters most.
    const key = await services.projects.keyOf(projectId).catch(() => undefined);
    if (key === undefined) return projectId;
    projectKeys.set(projectId, key);
    return key;
  };

  // The /metrics tally is one observer of the evaluations served (docs/decisions/1772).
  const counts = new EvaluationCounts();
  const unobserve = services.evaluation.observe(counts);
  app.addHook('onClose', async () => unobserve());
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

  // Read from the outbox on scrape: one grouped query over the queue index, shared by both
  // gauges (prom-client collects them concurrently) (docs/decisions/1760).
  const webhooks = services.webhooks;
  if (webhooks !== undefined) {
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

  const duration = new FastHistogram({
    name: 'flagstaff_http_request_duration_seconds',
    help: 'HTTP request duration from arrival to response sent, by route pattern, method and status class.',
    buckets: DURATION_BUCKETS,
  });
  // Exposed by the registry like its own histograms; observed without prom-client's per-call label work.
  registry.registerMetric(duration as unknown as Parameters<Registry['registerMetric']>[0]);
  // A callback hook, not an async one: it runs on every response, and a promise per request shows.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const method = request.method;
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    // One series per (method, route, status class): routes and methods are finite.
    duration
      .series(`${method} ${statusClass} ${route}`, () => ({ route, method, status_class: statusClass }))
      .observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
  return registry;
}
