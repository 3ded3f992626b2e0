import { Type } from 'typebox';
import { WEBHOOK_FORMATS } from '../webhook.ts';
import { Id, Json, OneOf, Timestamp, Version } from './kit.ts';

// A project's webhooks, their deliveries and a test event's report as the API answers them: the
// wire contract the dashboard reads (decision 1870).

/** What a webhook is sent: `json` (the default) or `slack`, each event as a Block Kit message for Slack's incoming webhooks. */
export const WebhookFormatSchema = OneOf(WEBHOOK_FORMATS, {
  description:
    '`json` (default): the event as JSON. `slack`: a Block Kit message for a Slack incoming webhook.',
});

export const WebhookSchema = Type.Object({
  id: Id,
  projectId: Id,
  url: Type.String(),
  format: WebhookFormatSchema,
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  backlog: Type.Optional(
    Type.Object(
      {
        pending: Type.Integer({ minimum: 0, description: 'Events queued and not delivered yet.' }),
        oldestPendingAt: Type.Union([Timestamp, Type.Null()], {
          description: 'When the oldest of them was queued; null when none is.',
        }),
      },
      { description: 'In read answers: what the webhook has still to deliver.' },
    ),
  ),
});

export const CreatedWebhookSchema = Type.Object({ ...WebhookSchema.properties, secret: Type.String() });

export const AttemptSchema = Type.Object({
  at: Timestamp,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
});

export const DeliverySchema = Type.Object({
  id: Id,
  webhookId: Id,
  event: Type.String(),
  state: OneOf(['pending', 'delivered', 'failed']),
  attempts: Type.Array(AttemptSchema),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
  finishedAt: Type.Union([Timestamp, Type.Null()]),
  redeliveryOf: Type.Union([Id, Type.Null()]),
  payload: Json('The JSON body sent.'),
});

export const TestReportSchema = Type.Object({
  event: Type.Literal('webhook.test'),
  deliveryId: Type.String({ description: 'Sent as Flagstaff-Delivery; `tst_…`, not in the delivery log.' }),
  sentAt: Timestamp,
  delivered: Type.Boolean({ description: 'The receiver answered 2xx.' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null when the receiver never answered.',
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'What went wrong: the status and the start of the answer, no connection, no answer within 10 s, or an address the server may not reach.',
  }),
  durationMs: Type.Integer(),
});
