/** What a webhook is sent: the event as JSON, or as a Slack Block Kit message (issue 39). */
export const WEBHOOK_FORMATS = ['json', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A project's subscription to its audit events, POSTed to `url` (docs/product.md §9). */
export interface Webhook {
  readonly id: string;
  readonly projectId: string;
  readonly url: string;
  /** Stored webhooks always say; one made without it (older code, tests) is JSON. */
  readonly format?: WebhookFormat;
  /** Audit actions (`flag.updated`), prefixes (`flag.*`) or `*`. */
  readonly events: readonly string[];
  readonly active: boolean;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Read answers only: the events not delivered yet, and since when the oldest has waited. */
  readonly backlog?: { readonly pending: number; readonly oldestPendingAt: string | null };
}

/** `pending` until a 2xx answer (`delivered`) or 24 h of failures (`failed`). */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  readonly at: string;
  /** The receiver's status; null when it never answered (refused, timed out, blocked address). */
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** One event on its way to one webhook, with every attempt so far (the delivery log). */
export interface WebhookDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly event: string;
  readonly state: DeliveryState;
  readonly attempts: readonly WebhookAttempt[];
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  /** Set when this delivery is a redelivery of another. */
  readonly redeliveryOf: string | null;
  readonly payload: unknown;
}

/** Whether a webhook subscribed to `patterns` wants the audit action `action`. */
export function webhookWants(patterns: readonly string[], action: string): boolean {
  return patterns.some(
    (pattern) =>
      pattern === '*' ||
      pattern === action ||
      (pattern.endsWith('.*') && action.startsWith(pattern.slice(0, -1))),
  );
}
