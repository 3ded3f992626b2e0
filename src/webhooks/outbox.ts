import type { AuditEvent } from '../domain/audit-event.ts';
import { newId } from '../domain/ids.ts';
import { webhookWants } from '../domain/webhook.ts';
import type { WebhookStore } from '../storage/webhook-store.ts';

/** The JSON body POSTed for an audit event (the same on every attempt and redelivery). */
export function webhookBody(projectId: string, event: AuditEvent): string {
  return JSON.stringify({ type: event.action, projectId, event });
}

/**
 * Queues the event for every active webhook of the project that wants it. Call it with the
 * webhook store of the write's own transaction: the outbox commits with the write or not at
 * all, so a delivery survives any restart after the commit (docs/product.md §9).
 */
export async function enqueueWebhookDeliveries(
  webhooks: WebhookStore,
  projectId: string,
  event: AuditEvent,
): Promise<void> {
  const wanting = (await webhooks.activeWebhooks(projectId)).filter((w) =>
    webhookWants(w.events, event.action),
  );
  if (wanting.length === 0) return;
  const payload = webhookBody(projectId, event);
  for (const webhook of wanting) {
    await webhooks.enqueueDelivery({
      id: newId('dlv'),
      webhookId: webhook.id,
      event: event.action,
      payload,
      createdAt: event.at,
    });
  }
}
