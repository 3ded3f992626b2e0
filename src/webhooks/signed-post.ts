import type { ServerSecret } from '../domain/server-secret.ts';
import { refusedWebhookUrl } from './address-guard.ts';
import { readTextPrefix } from './read-text-prefix.ts';
import { webhookSignature } from './signature.ts';
import { openWebhookSecret } from './webhook-secret.ts';

/** docs/product.md §9: an attempt that has no answer after 10 s failed. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is kept (delivery log, test report), and read. */
export const ERROR_TEXT_LIMIT = 200;

/** One event for one receiver: what is POSTed, and the secret that signs it. */
export interface SignedPost {
  readonly url: string;
  /** The webhook's secret as stored: sealed with the server secret (`webhook-secret.ts`). */
  readonly secret: string;
  /** `Flagstaff-Event`. */
  readonly event: string;
  /** `Flagstaff-Delivery`: lets receivers drop a repeat. */
  readonly deliveryId: string;
  /** The JSON body, as sent and signed. */
  readonly payload: string;
}

export interface PostOptions {
  /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: let the post reach private addresses. */
  readonly allowPrivate: boolean;
  readonly timeoutMs?: number;
  /** Aborts the post (the node shutting down); the outcome then says `aborted`. */
  readonly signal?: AbortSignal;
  readonly clock: () => number;
  /** Opens the webhook's sealed secret. */
  readonly serverSecret: ServerSecret;
}

/** How a post went: the receiver's status (null when it never answered) and what was wrong, if anything. */
export interface PostOutcome {
  readonly startedAt: number;
  readonly statusCode: number | null;
  /** null when the receiver answered 2xx. */
  readonly error: string | null;
  readonly durationMs: number;
  /** Failed because `signal` cut it short: not the receiver's doing. */
  readonly aborted: boolean;
}

/** The plaintext secret, or undefined when it was sealed under another server key. */
function openedSecret(stored: string, serverSecret: ServerSecret): string | undefined {
  try {
    return openWebhookSecret(stored, serverSecret);
  } catch {
    return undefined;
  }
}

/** fetch says only "fetch failed"; its cause says what: "connect ECONNREFUSED 127.0.0.1:9". */
function failureText(caught: unknown): string {
  if (!(caught instanceof Error)) return String(caught);
  return caught.cause instanceof Error ? caught.cause.message : caught.message;
}

/**
 * POSTs one signed event (`Flagstaff-Signature`, docs/product.md §9) to an address the guard allows,
 * checked again now since DNS answers change; redirects are not followed, so a receiver cannot
 * send the server on to an address the guard would refuse. Never throws: every failure is an outcome.
 */
export async function postSigned(post: SignedPost, options: PostOptions): Promise<PostOutcome> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const startedAt = options.clock();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const refused = await refusedWebhookUrl(post.url, options.allowPrivate);
    const secret = refused === undefined ? openedSecret(post.secret, options.serverSecret) : undefined;
    if (refused !== undefined) {
      error = `not sent: the URL ${refused}`;
    } else if (secret === undefined) {
      error =
        'not sent: the webhook secret does not open with this server key (FLAGSTAFF_SECRET_KEY changed?); set the secret again';
    } else {
      const timeout = AbortSignal.timeout(timeoutMs);
      const response = await fetch(post.url, {
        method: 'POST',
        redirect: 'manual',
        signal: options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Flagstaff-Webhooks',
          'flagstaff-event': post.event,
          'flagstaff-delivery': post.deliveryId,
          'flagstaff-signature': webhookSignature(secret, post.payload, Math.floor(startedAt / 1000)),
        },
        body: post.payload,
      });
      statusCode = response.status;
      if (statusCode < 200 || statusCode > 299) {
        // Read no more than is kept: a receiver answering 300 MB must not cost the node 300 MB.
        const text = response.body === null ? '' : await readTextPrefix(response.body, ERROR_TEXT_LIMIT);
        error = `answered ${statusCode}: ${text}`;
      } else {
        await response.body?.cancel();
      }
    }
  } catch (caught) {
    error =
      caught instanceof Error && caught.name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000} s`
        : `could not connect: ${failureText(caught)}`;
  }
  return {
    startedAt,
    statusCode,
    error,
    durationMs: options.clock() - startedAt,
    aborted: error !== null && options.signal?.aborted === true,
  };
}
