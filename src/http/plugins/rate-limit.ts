import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Refusal } from '../../access/admission.ts';
import type { Bucket, RateLimiter } from '../../access/token-buckets.ts';
import { problem, sendProblem } from '../problem.ts';

export type { RateLimitBudget } from '../../access/budgets.ts';

/** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (docs/product.md §5) for one bucket. */
export function setRateLimitHeaders(reply: FastifyReply, buckets: RateLimiter, bucket: Bucket): void {
  reply.header('ratelimit-limit', buckets.capacity);
  reply.header('ratelimit-remaining', Math.floor(bucket.tokens));
  reply.header('ratelimit-reset', buckets.resetSeconds(bucket));
}

/**
 * Answers admission's refusal: 401 (with `WWW-Authenticate`), 403, or 429 with `Retry-After`,
 * and the RateLimit headers of the budget that refused it.
 */
export function sendRefusal(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): FastifyReply {
  const { error, limiter, bucket } = refusal;
  if (limiter !== undefined && bucket !== undefined) {
    setRateLimitHeaders(reply, limiter, bucket);
    if (error.code === 'rate_limited') reply.header('retry-after', limiter.retryAfterSeconds(bucket));
  }
  // Never the credential itself, nor its hash: the reason and the address are enough.
  if (error.code === 'unauthorized') {
    request.log.debug({ address: request.ip, reason: error.message }, 'authentication failed');
  } else if (error.code === 'rate_limited') {
    request.log.debug({ address: request.ip, principal: request.principal?.id }, 'rate limited');
  }
  return sendProblem(reply, problem(error.code, error.message, error.errors));
}
