import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS, parseRetryAfter, retryDelayMs } from './retry-delay.ts';

describe('retryDelayMs', () => {
  it.each([
    [1, 0, 250],
    [1, 1, 500],
    [2, 0, 500],
    [4, 1, 4_000],
    [20, 1, MAX_DELAY_MS],
    [20, 0, MAX_DELAY_MS / 2],
  ])('after %i failures with a random draw of %d waits %d ms', (attempt, draw, expected) => {
    expect(retryDelayMs(attempt, undefined, () => draw)).toBe(expected);
  });

  it('never waits less than the server’s Retry-After, even when the backoff is shorter', () => {
    expect(retryDelayMs(1, 1_000, () => 0.5)).toBe(1_000);
    expect(retryDelayMs(3, 10_000, () => 1)).toBe(10_000);
    expect(retryDelayMs(3, 1_000, () => 1)).toBe(2_000);
  });

  it('spreads clients that failed together: a thousand draws give many different waits', () => {
    const waits = new Set(Array.from({ length: 1000 }, () => Math.round(retryDelayMs(5, undefined))));
    expect(waits.size).toBeGreaterThan(500);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(4_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it.each([
    ['1', 1_000],
    [' 120 ', 120_000],
    ['Tue, 10 Mar 2026 12:00:30 GMT', 30_000],
    ['Tue, 10 Mar 2026 11:00:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads %j as %j ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});
