import { ServerSecret } from '../domain/server-secret.ts';
import type { WebhookStore } from '../storage/webhook-store.ts';

/**
 * Webhook signing secrets at rest (docs/decisions/1880): the database, and so every backup,
 * holds them sealed with the server secret (AES-256-GCM). A secret stored before sealing existed
 * is plaintext until the first start seals it (`WebhookStore.sealPlainSecrets`); until then it
 * is used as it is.
 */
export function openWebhookSecret(stored: string, secret: ServerSecret): string {
  return ServerSecret.isSealed(stored) ? secret.open(stored) : stored;
}

/** Seals every webhook secret still stored in plaintext (an installation from before sealing); how many. */
export function sealPlainWebhookSecrets(webhooks: WebhookStore, secret: ServerSecret): Promise<number> {
  return webhooks.sealPlainSecrets(ServerSecret.isSealed, (plain) => secret.seal(plain));
}
