import { describe, expect, it } from 'vitest';
import type { VariantUsage } from '../storage/insights-store.ts';
import { minuteOf } from './minutes.ts';
import { staleness, usageSince } from './stale.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW - days * DAY_MS).toISOString();
const used = (variant: string | null, firstDaysAgo: number, lastDaysAgo: number): VariantUsage => ({
  flagKey: 'f',
  environment: 'production',
  variant,
  firstMinute: minuteOf(daysAgo(firstDaysAgo)),
  lastMinute: minuteOf(daysAgo(lastDaysAgo)),
});

describe('staleness (docs/product.md §10)', () => {
  it.each([
    ['a flag younger than 30 days, never evaluated', 10, [], undefined],
    ['a flag never evaluated in 40 days', 40, [], 'not_evaluated'],
    ['last evaluated 31 days ago', 90, [used('on', 80, 31)], 'not_evaluated'],
    [
      'evaluated yesterday, two variants in the window',
      90,
      [used('on', 80, 1), used('off', 20, 1)],
      undefined,
    ],
    ['one variant for 60 days', 90, [used('on', 60, 0)], 'single_variant'],
    ['one variant, but first served 10 days ago', 90, [used('on', 10, 0), used('off', 80, 11)], undefined],
    [
      'one variant now, another until 40 days ago',
      90,
      [used('on', 60, 0), used('off', 80, 40)],
      'single_variant',
    ],
    ['no variant served (null) for 60 days', 90, [used(null, 60, 0)], 'single_variant'],
  ] as const)('%s', (_, ageDays, usage, expected) => {
    const flag = { createdAt: daysAgo(ageDays) };
    expect(staleness(flag, 'production', usageSince(usage, flag.createdAt), NOW)?.reason).toBe(expected);
  });

  it('ignores usage of a deleted flag that had the same key', () => {
    const flag = { createdAt: daysAgo(35) };
    const usage = usageSince([used('on', 80, 36)], flag.createdAt);
    expect(staleness(flag, 'production', usage, NOW)).toEqual({
      reason: 'not_evaluated',
      detail: 'Never evaluated in production.',
    });
  });
});
