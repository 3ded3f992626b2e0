import { Type } from 'typebox';
import {
  CreatedWebhookSchema,
  DeliverySchema,
  TestReportSchema,
  WebhookFormatSchema,
  WebhookSchema,
} from '../../domain/schemas/webhook-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf, pageOf, sendMade, sendNoContent } from '../request-helpers.ts';
import { access, PROJECT } from '../route-access.ts';
import { listRoute, readRoute, routeGroups, writeRoute } from '../route-builders.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Id, ProjectParams, paged } from '../schemas/common.ts';
import type { RoutesApp } from '../type-provider.ts';

const EventPattern = Type.String({
  pattern: '^(\\*|[a-z_]+\\.(\\*|[a-z_]+))$',
  description: 'An audit action (`flag.updated`), all of a resource (`flag.*`), or every event (`*`).',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s); private addresses are refused.',
});
const Secret = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'Signs every delivery (HMAC-SHA256). Generated when absent; shown only when created.',
});

/** A project's webhooks (docs/product.md §9): project admins only. */
const describe = describeRoutes(['Webhooks'], access('admin', PROJECT));
const Params = Closed({ ...ProjectParams.properties, webhookId: Id });

/** The use cases these routes call. */
type WebhookUseCases = Pick<Services, 'webhooks'>;

export const webhookRoutes = routeGroups<WebhookUseCases>(webhookSetup, webhookById, webhookDeliveries);

function webhookSetup(app: RoutesApp, services: WebhookUseCases): void {
  app.get(
    '/projects/:projectId/webhooks',
    describe("List a project's webhooks (never their secrets)", {
      params: ProjectParams,
      200: Type.Array(WebhookSchema),
    }),
    async (request) => services.webhooks.list(actorOf(request), request.params.projectId),
  );

  app.post(
    '/projects/:projectId/webhooks',
    describe('Register a webhook; its secret is shown once', {
      description:
        'Each matching audit event is POSTed (as JSON, or with `format: slack` as a Slack Block Kit message linking to the dashboard at FLAGSTAFF_PUBLIC_URL) with Flagstaff-Event, Flagstaff-Delivery and Flagstaff-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.',
      params: ProjectParams,
      body: Closed({
        url: Url,
        format: Type.Optional(WebhookFormatSchema),
        events: Type.Array(EventPattern, { minItems: 1, maxItems: 50 }),
        secret: Type.Optional(Secret),
        active: Type.Optional(Type.Boolean()),
      }),
      201: CreatedWebhookSchema,
    }),
    async (request, reply) =>
      sendMade(
        request,
        reply,
        async (actor) => {
          const webhook = await services.webhooks.create(actor, request.params.projectId, request.body);
          // The answer carries the signing secret, shown this once.
          reply.header('cache-control', 'no-store');
          return webhook;
        },
        (webhook) => `/v1/projects/${request.params.projectId}/webhooks/${webhook.id}`,
      ),
  );
}

function webhookById(app: RoutesApp, services: WebhookUseCases): void {
  readRoute(
    app,
    '/projects/:projectId/webhooks/:webhookId',
    describe('Get a webhook', { params: Params, 200: WebhookSchema }),
    (actor, { params }) => services.webhooks.get(actor, params.projectId, params.webhookId),
  );

  writeRoute(
    app,
    'patch',
    '/projects/:projectId/webhooks/:webhookId',
    describe('Change a webhook (URL, events, secret, active)', {
      params: Params,
      body: Closed({
        url: Type.Optional(Url),
        format: Type.Optional(WebhookFormatSchema),
        events: Type.Optional(Type.Array(EventPattern, { minItems: 1, maxItems: 50 })),
        secret: Type.Optional(Secret),
        active: Type.Optional(Type.Boolean()),
      }),
      200: WebhookSchema,
      problems: [412],
    }),
    (actor, { params, body }, { ifMatch }) =>
      services.webhooks.update(actor, params.projectId, params.webhookId, body, ifMatch),
  );

  app.delete(
    '/projects/:projectId/webhooks/:webhookId',
    describe('Delete a webhook and its delivery log', {
      params: Params,
    }),
    async (request, reply) => {
      await services.webhooks.delete(actorOf(request), request.params.projectId, request.params.webhookId);
      return sendNoContent(reply);
    },
  );
}

function webhookDeliveries(app: RoutesApp, services: WebhookUseCases): void {
  listRoute(
    app,
    '/projects/:projectId/webhooks/:webhookId/deliveries',
    describe('The delivery log, newest first, with every attempt', {
      params: Params,
      ...paged(DeliverySchema),
    }),
    (actor, { params, query }) =>
      services.webhooks.deliveries(actor, params.projectId, params.webhookId, pageOf(query)),
  );

  app.post(
    '/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    describe("Send a delivery's event again (a new delivery, at the end of the queue)", {
      params: Closed({ ...Params.properties, deliveryId: Id }),
      202: DeliverySchema,
    }),
    async (request, reply) => {
      const delivery = await services.webhooks.redeliver(
        actorOf(request),
        request.params.projectId,
        request.params.webhookId,
        request.params.deliveryId,
      );
      return reply.code(202).send(delivery);
    },
  );

  app.post(
    '/projects/:projectId/webhooks/:webhookId/test',
    describe('Send a signed test event to the webhook now and report its answer', {
      description:
        'POSTs `{ type: "webhook.test", projectId, event }` signed like every delivery, active or not, and answers how the receiver responded (200 whatever it answered). Not queued, retried or kept in the delivery log.',
      params: Params,
      200: TestReportSchema,
    }),
    async (request) =>
      services.webhooks.sendTest(actorOf(request), request.params.projectId, request.params.webhookId),
  );
}
