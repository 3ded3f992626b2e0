import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Bucket, RateLimiter } from '../../services/core/token-buckets.ts';
import { problem, sendProblem } from '../problem.ts';

export type { Clock } from '../../domain/clock.ts';
export { type Bucket, type RateLimiter, TokenBuckets } from '../../services/core/token-buckets.ts';

/** The budgets a route can draw from (`config: { rateLimit: 'evaluation' }`); `false` exempts it. */
export type RateLimitBudget = 'evaluation' | 'management';

/** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (docs/product.md §5) for one bucket. */
export function setRateLimitHeaders(reply: FastifyReply, buckets: RateLimiter, bucket: Bucket): void {
  reply.header('ratelimit-limit', buckets.capacity);
  reply.header('ratelimit-remaining', Math.floor(bucket.tokens));
  reply.header('ratelimit-reset', buckets.resetSeconds(bucket));
}

/** The 429 of docs/product.md §5: `Retry-After` and a problem body. */
export function sendRateLimited(
  reply: FastifyReply,
  buckets: RateLimiter,
  bucket: Bucket,
  detail: string,
): FastifyReply {
  const seconds = buckets.retryAfterSeconds(bucket);
  reply.header('retry-after', seconds);
  return sendProblem(reply, problem('rate_limited', `${detail} Retry in ${seconds} s.`));
}

/** Takes one token for the request's principal: true to go on, false when it answered 429. */
export type RateLimitStep = (request: FastifyRequest, reply: FastifyReply) => boolean;

/**
 * The principal's rate limit of one budget, run by the route's guard after authentication: one
 * token from its bucket, or 429. Synchronous, to cost the hot path nothing but the bucket
 * arithmetic.
 */
export function rateLimitStep(buckets: RateLimiter, budget: RateLimitBudget): RateLimitStep {
  const detail = `This API key exceeded its ${budget} rate limit of ${buckets.perSecond} requests per second.`;
  return function rateLimit(request, reply) {
    const principal = request.principal;
    if (principal === undefined) return true;
    const bucket = buckets.take(principal.id);
    setRateLimitHeaders(reply, buckets, bucket);
    if (bucket.allowed) return true;
    request.log.debug({ principal: principal.id, budget }, 'rate limited');
    sendRateLimited(reply, buckets, bucket, detail);
    return false;
  };
}
