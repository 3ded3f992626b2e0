import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Bucket, RateLimiter } from '../../services/token-buckets.ts';
import { problem, sendProblem } from '../problem.ts';

export type { Clock } from '../../domain/clock.ts';
export { type Bucket, type RateLimiter, TokenBuckets } from '../../services/token-buckets.ts';

/** The budgets a route can draw from (`config: { rateLimit: 'evaluation' }`); `false` exempts it. */
export type RateLimitBudget = 'evaluation' | 'management';

/** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (SPEC §5) for one bucket. */
export function setRateLimitHeaders(reply: FastifyReply, buckets: RateLimiter, bucket: Bucket): void {
  reply.header('ratelimit-limit', buckets.capacity);
  reply.header('ratelimit-remaining', Math.floor(bucket.tokens));
  reply.header('ratelimit-reset', buckets.resetSeconds(bucket));
}

/** The 429 of SPEC §5: `Retry-After` and a problem body. */
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

/**
 * A route-level onRequest hook that runs after authentication: one token from the principal's
 * bucket of this budget, or 429. Callback style and synchronous, to cost the hot path nothing
 * but the bucket arithmetic.
 */
export function rateLimitHook(buckets: RateLimiter, budget: RateLimitBudget) {
  const detail = `This API key exceeded its ${budget} rate limit of ${buckets.perSecond} requests per second.`;
  return function rateLimit(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    const principal = request.principal;
    if (principal === undefined) {
      done();
      return;
    }
    const bucket = buckets.take(principal.id);
    setRateLimitHeaders(reply, buckets, bucket);
    if (bucket.allowed) {
      done();
      return;
    }
    request.log.debug({ principal: principal.id, budget }, 'rate limited');
    sendRateLimited(reply, buckets, bucket, detail);
  };
}
