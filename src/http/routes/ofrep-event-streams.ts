import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { Refusal } from '../../access/admission.ts';
import { notFound } from '../../domain/errors.ts';
import { openEventStreamConnection } from '../../realtime/event-stream-connection.ts';
import type { Realtime } from '../../realtime/realtime.ts';
import { descriptorLimit, type StreamLimits, streamLimits } from '../../realtime/stream-limits.ts';
import type { Services } from '../../services/services.ts';
import { sendRefusal, setRateLimitHeaders } from '../plugins/rate-limit.ts';
import { problem, sendProblem } from '../problem.ts';
import type { RoutesPlugin } from '../type-provider.ts';

export const EVENT_STREAM_PATH = '/ofrep/v1/events';

type EventStreams = Realtime['eventStreams'];

/** What a refused stream's Retry-After says: streams come and go, so soon. */
const STREAM_RETRY_SECONDS = 5;

/** The stream's route options: public (the token is the credential), read by browsers. */
const EVENT_STREAM_ROUTE = {
  // A HEAD would open a stream with no body to send it in.
  exposeHeadRoute: false,
  config: { access: 'public' as const, browser: true },
  schema: {
    tags: ['OFREP'],
    summary: 'Stream change notifications (OFREP event stream, SSE)',
    description:
      'Open the `url` of `eventStreams` in a bulk evaluation response; do not build it. Sends `refetchEvaluation` messages (`etag` is the project revision, send it back as `flagConfigEtag`), a comment every 15 s, and honours Last-Event-ID. Ends when the token expires or its key is revoked.',
    security: [],
    querystring: Type.Object({ token: Type.String({ description: 'Signed by the server; opaque.' }) }),
    response: {
      200: Type.String({ description: 'text/event-stream' }),
      401: Type.Unknown({ description: 'Malformed, tampered, expired, or its key revoked.' }),
      429: Type.Unknown({
        description:
          "The key's evaluation rate limit, or the streams open for the key or on this node, are at their limit.",
      }),
      403: Type.Unknown({ description: 'The key no longer covers the project or environment.' }),
      404: Type.Unknown({ description: 'The environment no longer exists.' }),
    },
  },
};

/**
 * The OFREP event stream (docs/product.md §9, reference/ofrep/event-streams.yaml). EventSource sends no
 * headers, so the URL's token is the credential; the bulk evaluation response hands it out.
 */
export const eventStreamRoutes: RoutesPlugin<{
  services: Services;
  realtime: Realtime;
  limits?: StreamLimits;
}> = async (app, { services, realtime, limits = streamLimits({}, descriptorLimit()) }) => {
  const streams = realtime.eventStreams;
  // A handshake costs the key an evaluation (decision 1762): admission takes it from this budget.
  const evaluationBudget = app.accessControl.admission.budgets.evaluation;
  // Open streams would keep close() waiting forever; clients reconnect to another node.
  app.addHook('preClose', async () => streams.closeAll());

  app.get(EVENT_STREAM_PATH, EVENT_STREAM_ROUTE, async (request, reply) => {
    const grant = await realtime.streamAccess.admit(request.query.token, request.ip);
    if (grant instanceof Refusal) return sendRefusal(request, reply, grant);
    request.principal = grant.principal;
    if (evaluationBudget !== undefined && grant.bucket !== undefined) {
      setRateLimitHeaders(reply, evaluationBudget, grant.bucket);
    }
    if (!(await services.evaluation.hasEnvironment(grant.projectId, grant.environment))) {
      throw notFound('The environment of this stream no longer exists.');
    }
    // Checked last, with nothing awaited between the check and the stream's opening.
    const full = streamsFull(streams, limits, grant.keyId);
    if (full !== undefined) return refuseStream(reply, full);
    const lastEventId = request.headers['last-event-id'];
    // CORS and request-id headers set by hooks so far travel with the stream's own.
    const headers = Object.fromEntries(
      Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]),
    );
    headers['x-request-id'] = request.id;
    reply.hijack();
    const connection = openEventStreamConnection(request.raw, reply.raw, headers);
    streams.open(connection, grant, typeof lastEventId === 'string' ? lastEventId : undefined);
  });
};

/** Why no stream may open now for the key, when the node or the key holds its limit of streams. */
function streamsFull(streams: EventStreams, limits: StreamLimits, keyId: string): string | undefined {
  if (streams.size >= limits.perNode)
    return `This server holds its limit of ${limits.perNode} event streams; retry later or poll.`;
  if (streams.openFor(keyId) >= limits.perKey)
    return `This API key holds its limit of ${limits.perKey} event streams on this server.`;
  return undefined;
}

/** 429 before descriptors run out: the client's EventSource retries, the provider keeps polling. */
function refuseStream(reply: FastifyReply, detail: string): FastifyReply {
  reply.header('retry-after', STREAM_RETRY_SECONDS);
  return sendProblem(reply, problem('rate_limited', detail));
}
