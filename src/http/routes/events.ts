import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { validationFailed } from '../../domain/errors.ts';
import { MAX_EVENTS_PER_BATCH } from '../../domain/tracking-event.ts';
import { OVERLOAD_RETRY_AFTER_SECONDS } from '../../services/measurement/event-service.ts';
import type { Services } from '../../services/services.ts';
import { actorOf } from '../request-helpers.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';
import { environmentOf, headerOf, OFREP_ACCESS, PROJECT_HEADER } from './ofrep.ts';

const describe = describeRoutes(['Events']);

const EventSchema = Type.Unknown({
  description:
    '`{ name, context: { targetingKey, … }, value?, details?, timestamp?, id? }`: checked one by one, so that an invalid event is refused by its index and the others kept. `name`: letters, digits, `_ . : / -` and inner spaces (≤ 128), or `$exposure` with `details: { flag, variant }`; `value`: a number; `timestamp`: RFC 3339, at most 5 minutes ahead and within retention (default: arrival); `id`: the same on a retry, so the event is stored once.',
});

const TrackAnswer = Type.Object({
  accepted: Type.Integer({ description: 'Events kept (those of a retry, stored already, included).' }),
  rejected: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Position of the event in `events`.' }),
      code: Type.String({
        description:
          'invalid_event, unknown_field, invalid_name, invalid_context, targeting_key_missing, invalid_value, invalid_details, invalid_timestamp, future_timestamp, expired_timestamp, invalid_id, invalid_exposure',
      }),
      message: Type.String(),
    }),
  ),
});

/** Admits the batch, which holds its place until its response closes; or the refusal, with Retry-After. */
function admit(services: Services, reply: FastifyReply): Error | null {
  try {
    services.events.admit();
  } catch (error) {
    reply.header('retry-after', OVERLOAD_RETRY_AFTER_SECONDS);
    return error as Error;
  }
  // 'close' comes once however the response ends: sent, failed, or the client gone.
  reply.raw.once('close', () => services.events.release());
  return null;
}

/** The project and environment of the key, as OFREP takes them (docs/product.md §6): headers, else the key's own. */
function scopeOf(request: FastifyRequest) {
  const project = headerOf(request, PROJECT_HEADER);
  if (project === undefined && actorOf(request).principal.projectId === null) {
    throw validationFailed(
      'An organisation-wide key must name the project: send the header "X-Flagstaff-Project: <key or id>".',
      [{ path: 'headers:/x-flagstaff-project', message: 'is required with an organisation-wide key' }],
    );
  }
  return { project, environment: environmentOf(request) };
}

/** POST /v1/events (SPEC §13): OpenFeature tracking events, in batches, durable before the answer. */
export const eventRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/events',
    {
      ...describe('Send tracking events', {
        description: `At most ${MAX_EVENTS_PER_BATCH} events and 1 MiB a batch (else 413). The environment is the X-Flagstaff-Environment header, else the API key’s own when it is bound to one, else production; an organisation-wide key names the project with X-Flagstaff-Project. Stored before the answer; 503 with Retry-After when the node holds too many batches (nothing of that batch kept).`,
        body: Closed({ events: Type.Array(EventSchema) }),
        200: TrackAnswer,
        problems: [404, 503],
        config: { access: OFREP_ACCESS, browser: true },
      }),
      // Before the body is read: an overloaded node refuses a batch without holding it in memory.
      preParsing: (_request, reply, payload, done) => done(admit(services, reply), payload),
    },
    async (request) => {
      const { projectId, environment } = await services.evaluation.target(actorOf(request), scopeOf(request));
      return services.events.track({ projectId, environment }, request.body.events);
    },
  );
};
