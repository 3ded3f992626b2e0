import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-buckets.ts';

function buckets(capacity: number, perSecond: number) {
  const clock = { now: 1_000_000 };
  return { clock, buckets: new TokenBuckets({ capacity, perSecond, clock: () => clock.now }) };
}

describe('TokenBuckets', () => {
  it('starts full, gives a token per take, and refuses once empty', () => {
    const { buckets: b } = buckets(3, 3);
    const taken = [1, 2, 3, 4].map(() => {
      const bucket = b.take('k');
      return { allowed: bucket.allowed, remaining: Math.floor(bucket.tokens) };
    });
    expect(taken).toEqual([
      { allowed: true, remaining: 2 },
      { allowed: true, remaining: 1 },
      { allowed: true, remaining: 0 },
      { allowed: false, remaining: 0 },
    ]);
  });

  it.each([
    { afterMs: 0, tokens: 0 },
    { afterMs: 100, tokens: 1 },
    { afterMs: 550, tokens: 5.5 },
    { afterMs: 1000, tokens: 10 },
    { afterMs: 60_000, tokens: 10 },
  ])(
    'refills continuously: $afterMs ms after emptying, $tokens tokens (never above capacity)',
    ({ afterMs, tokens }) => {
      const { clock, buckets: b } = buckets(10, 10);
      for (let i = 0; i < 10; i++) b.take('k');
      clock.now += afterMs;
      expect(b.peek('k').tokens).toBeCloseTo(tokens, 6);
    },
  );

  it('keeps keys apart', () => {
    const { buckets: b } = buckets(1, 1);
    expect(b.take('a').allowed).toBe(true);
    expect(b.take('a').allowed).toBe(false);
    expect(b.take('b').allowed).toBe(true);
  });

  it.each([
    { capacity: 50, perSecond: 50, taken: 50, reset: 1, retryAfter: 1 },
    { capacity: 10, perSecond: 1, taken: 10, reset: 10, retryAfter: 1 },
    { capacity: 10, perSecond: 0.5, taken: 10, reset: 20, retryAfter: 2 },
    { capacity: 10, perSecond: 1, taken: 1, reset: 1, retryAfter: 1 },
    { capacity: 10, perSecond: 1, taken: 0, reset: 0, retryAfter: 1 },
  ])(
    'capacity $capacity at $perSecond/s with $taken taken: full again in $reset s, a token in $retryAfter s',
    ({ capacity, perSecond, taken, reset, retryAfter }) => {
      const { buckets: b } = buckets(capacity, perSecond);
      for (let i = 0; i < taken; i++) b.take('k');
      const bucket = b.peek('k');
      expect(b.resetSeconds(bucket)).toBe(reset);
      expect(b.retryAfterSeconds(bucket)).toBe(retryAfter);
    },
  );

  it('drops buckets that have refilled once there are many, so addresses cannot grow it without bound', () => {
    const { clock, buckets: b } = buckets(2, 1);
    for (let i = 0; i < 10_000; i++) b.take(`address-${i}`);
    expect(b.size).toBe(10_000);
    clock.now += 5_000;
    b.take('one-more');
    expect(b.size).toBe(1);
  });

  it('takes a token without allocating a new bucket for a known key', () => {
    const { buckets: b } = buckets(5, 5);
    const first = b.take('k');
    expect(b.take('k')).toBe(first);
  });
});
