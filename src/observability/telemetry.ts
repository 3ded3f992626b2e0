import type { Attributes, Span, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EvaluationObservers, ServedIn } from '../domain/evaluation-observer.ts';
import type { EvaluationDetail } from '../domain/evaluation-result.ts';

export interface TelemetryOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to `<endpoint>/v1/traces`. */
  readonly endpoint: string;
  readonly serviceName: string;
}

/** Our reasons as the semantic conventions' well-known `feature_flag.result.reason` values. */
const REASONS: Readonly<Record<string, string>> = {
  targeting: 'targeting_match',
  split: 'split',
  default: 'default',
  disabled: 'disabled',
  static: 'static',
};

/**
 * An evaluation per the OpenTelemetry feature-flag semantic conventions. Deliberately without
 * `feature_flag.context.id` or any other part of the context: users' attributes never leave in traces.
 * The value is left out too; the variant names it.
 */
export function evaluationAttributes(
  projectId: string,
  environment: string,
  result: EvaluationDetail,
): Attributes {
  return {
    'feature_flag.key': result.key,
    'feature_flag.provider.name': 'Flagstaff',
    'feature_flag.set.id': `${projectId}/${environment}`,
    'feature_flag.result.reason': REASONS[result.reason] ?? result.reason,
    ...(result.variant === null ? {} : { 'feature_flag.result.variant': result.variant }),
  };
}

/**
 * Traces every HTTP request as a server span and records evaluations on it as `feature_flag.evaluation`
 * events. The OpenTelemetry packages are imported here, on demand, so a server without
 * OTEL_EXPORTER_OTLP_ENDPOINT never loads them.
 */
export async function registerTelemetry(
  app: FastifyInstance,
  evaluations: EvaluationObservers,
  options: TelemetryOptions,
): Promise<void> {
  const [api, core, resources, sdk, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const base = options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`;
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({ url: new URL('v1/traces', base).href }),
      }),
    ],
  });
  const spans = traceRequests(
    app,
    api,
    provider.getTracer('flagstaff'),
    new core.W3CTraceContextPropagator(),
  );
  const unobserve = traceEvaluations(evaluations, spans);
  app.addHook('onClose', async () => {
    unobserve();
    await provider.shutdown();
  });
}

type Api = typeof import('@opentelemetry/api');

/**
 * A server span per request, from its arrival to its answer (or abort), named by its route; the
 * spans of the requests under way, keyed by request id: evaluations know their request by the
 * actor's id, not by the Fastify request.
 */
function traceRequests(
  app: FastifyInstance,
  api: Api,
  tracer: Tracer,
  propagator: TextMapPropagator,
): Map<string, Span> {
  const spans = new Map<string, Span>();
  const end = (request: FastifyRequest, statusCode: number | undefined) => {
    const span = spans.get(request.id);
    if (span === undefined) return;
    spans.delete(request.id);
    const route = request.routeOptions.url;
    if (route !== undefined) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    if (statusCode !== undefined) {
      span.setAttribute('http.response.status_code', statusCode);
      if (statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end();
  };

  app.addHook('onRequest', async (request) => {
    // W3C traceparent from the caller makes our span a child of theirs.
    const parent = propagator.extract(api.ROOT_CONTEXT, request.headers, api.defaultTextMapGetter);
    const span = tracer.startSpan(
      request.method,
      {
        kind: api.SpanKind.SERVER,
        // The path only: the query string may carry a user's attributes.
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?')[0] ?? '/',
          'url.scheme': request.protocol,
        },
      },
      parent,
    );
    spans.set(request.id, span);
  });
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
  app.addHook('onRequestAbort', async (request) => end(request, undefined));
  return spans;
}

/** Each evaluation as an event on its request's span; returns the observer's removal. */
function traceEvaluations(evaluations: EvaluationObservers, spans: ReadonlyMap<string, Span>): () => void {
  const traced = (where: ServedIn, results: readonly EvaluationDetail[]) => {
    const span = spans.get(where.actor.requestId);
    if (span === undefined) return;
    for (const result of results) {
      const attributes = evaluationAttributes(where.projectId, where.environment, result);
      span.addEvent('feature_flag.evaluation', attributes);
      // A single evaluation also marks the request span itself, to find it by flag.
      if (results.length === 1) span.setAttributes(attributes);
    }
  };
  return evaluations.observe({
    served: (where, result) => traced(where, [result]),
    servedAll: traced,
  });
}
