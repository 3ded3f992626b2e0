import { describe, expect, test } from 'vitest';
import { parseInstant } from './dates.ts';

describe('parseInstant', () => {
  test.each<[unknown, number | undefined]>([
    ['2025-01-01T00:00:00Z', Date.UTC(2025, 0, 1)],
    ['2025-01-01t00:00:00z', Date.UTC(2025, 0, 1)],
    ['2025-01-01 00:00:00Z', Date.UTC(2025, 0, 1)],
    ['2025-01-01T02:30:00+02:30', Date.UTC(2025, 0, 1)],
    ['2024-12-31T19:00:00-05:00', Date.UTC(2025, 0, 1)],
    ['2025-01-01T00:00:00.123Z', Date.UTC(2025, 0, 1) + 123],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2016-12-31T23:59:60Z', Date.UTC(2017, 0, 1)],
    ['2025-01-01', Date.UTC(2025, 0, 1)],
    [1735689600, Date.UTC(2025, 0, 1)],
    [1735689600.5, Date.UTC(2025, 0, 1) + 500],
    ['1735689600', Date.UTC(2025, 0, 1)],
    [-1, -1000],
    ['2023-02-29T00:00:00Z', undefined],
    ['2025-13-01T00:00:00Z', undefined],
    ['2025-01-01T24:00:00Z', undefined],
    ['2025-01-01T00:00:00', undefined],
    ['2025-01-01T00:00:00+24:00', undefined],
    ['01/01/2025', undefined],
    ['yesterday', undefined],
    ['', undefined],
    [Number.NaN, undefined],
    [true, undefined],
    [null, undefined],
  ])('reads %j as %j milliseconds since the epoch', (value, expected) => {
    expect(parseInstant(value)).toBe(expected);
  });

  test('reads years before 100 as themselves, not as 19xx', () => {
    expect(new Date(parseInstant('0050-06-01T00:00:00Z') ?? 0).getUTCFullYear()).toBe(50);
  });
});
