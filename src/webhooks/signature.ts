import { createHmac, timingSafeEqual } from 'node:crypto';

/** `Flagstaff-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (docs/product.md §9). */
export function webhookSignature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * What a receiver does (and the docs show): recompute the HMAC over the raw body and compare in
 * constant time, refusing signatures older than `toleranceSeconds` (replays).
 */
export function verifyWebhookSignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || v1 === undefined || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, body, t).split('v1=')[1] ?? '');
  const actual = Buffer.from(v1);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
