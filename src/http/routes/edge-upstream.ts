import { Type } from 'typebox';
import { EDGE_ROLE } from '../../domain/api-key.ts';
import { openEventStreamConnection } from '../../realtime/event-stream-connection.ts';
import type { Realtime } from '../../realtime/realtime.ts';
import type { Services } from '../../services/services.ts';
import { type EdgeBatch, refuseOutsideScope } from '../../services/serving/edge-upstream.ts';
import { actorOf } from '../request-helpers.ts';
import { ANY, access } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Edge']);

// Only edge keys, asked for by name (decision 1980); an edge's traffic is not the evaluation budget's.
const EDGE_ACCESS = access(EDGE_ROLE, ANY);

// Forwarded batches are checked by the service (scope) and were checked on the edge (shape).
const Batch = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128, description: 'The same on a retry: counted once.' }),
  events: Type.Array(Type.Any()),
  exposures: Type.Array(Type.Any()),
  counts: Type.Array(Type.Any()),
});

/**
 * What a node (or an edge) serves the edges following it (SPEC §14, decision 1981): one SSE
 * stream of its scope's snapshots and key hashes, and the batches edges forward.
 */
export const edgeUpstreamRoutes: RoutesPlugin<{ services: Services; realtime: Realtime }> = async (
  app,
  { services, realtime },
) => {
  app.addHook('preClose', async () => realtime.edgeStreams.closeAll());
  app.get(
    '/edge/stream',
    describe('Follow the snapshots and keys of an edge key’s scope (SSE)', {
      description:
        'For `flagstaff edge`: `hello` (protocol), each project of the scope not held at its revision (Last-Event-ID), the keys (hashes only), `ready`; then changes as they land, and a heartbeat comment. Edge keys only.',
      querystring: Type.Object({
        until: Type.Optional(Type.Literal('ready', { description: 'End the stream after `ready`.' })),
      }),
      config: EDGE_ACCESS,
    }),
    async (request, reply) => {
      const { principal } = actorOf(request);
      services.edgeUpstream.check(principal);
      const lastEventId = request.headers['last-event-id'];
      reply.hijack();
      const connection = openEventStreamConnection(request.raw, reply.raw, { 'x-request-id': request.id });
      realtime.edgeStreams.open(
        connection,
        principal,
        typeof lastEventId === 'string' ? lastEventId : undefined,
        request.query.until === 'ready',
      );
    },
  );

  app.post(
    '/edge/batches',
    describe('Forward an edge’s events, exposures and evaluation counts', {
      description:
        'Stored before the answer; a batch sent again with its id is counted once. Edge keys only.',
      body: Batch,
      200: Type.Object({ duplicate: Type.Boolean() }),
      config: access(EDGE_ROLE, ANY, { body: refuseOutsideScope }),
    }),
    async (request) => services.edgeUpstream.accept(actorOf(request).principal, request.body as EdgeBatch),
  );
};
