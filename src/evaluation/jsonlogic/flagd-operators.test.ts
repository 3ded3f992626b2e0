import { describe, expect, it } from 'vitest';
import vectorFile from '../../../test/data/bucketing-vectors.json' with { type: 'json' };
import { FLAGD_CONTEXT, fractional, semVer, stringAffix, toBuckets } from './flagd-operators.ts';

const data = (flagKey: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  $flagd: { flagKey, timestamp: 0 },
  [FLAGD_CONTEXT]: true,
});

describe('fractional', () => {
  it.each(vectorFile.vectors.map((v) => ({ ...v, name: `${v.flagKey}/${v.value}` })))(
    'picks the published vector $name',
    ({ flagKey, seed, value, weights, variant }) => {
      const entries = weights.map((w) => [w.variant, w.weight]);
      expect(fractional([`${seed ?? flagKey}${value}`, ...entries], data(flagKey))).toBe(variant);
    },
  );

  it('buckets flagKey + targetingKey without a bucket key', () => {
    const entries = [
      ['on', 50],
      ['off', 50],
    ];
    expect(fractional(entries, data('flag-00', { targetingKey: 'user-1' }))).toBe(
      fractional(['flag-00user-1', ...entries], data('x')),
    );
  });

  it('fails outside the evaluation context, as flagd-core does in iterator callbacks', () => {
    expect(() => fractional([['a', 1]], { targetingKey: 'k', $flagd: { flagKey: 'f' } })).toThrow();
  });
});

describe('toBuckets', () => {
  it.each([
    ['[variant] weighs 1', [['a'], ['b', 2]], { variants: ['a', 'b'], total: 3 }],
    [
      'negative weights count as 0',
      [
        ['a', -3],
        ['b', 1],
      ],
      { variants: ['a', 'b'], total: 1 },
    ],
    ['null and missing variants are null', [[null, 1]], { variants: [null], total: 1 }],
    [
      'numbers and booleans are variants too',
      [
        [1, 1],
        [true, 1],
      ],
      { variants: [1, true], total: 2 },
    ],
    ['a fractional weight refuses the split', [['a', 0.5]], null],
    ['a text weight refuses the split', [['a', '1']], null],
    ['an object variant refuses the split', [[{}, 1]], null],
    ['an empty entry refuses the split', [[]], null],
    ['a three-element entry refuses the split', [['a', 1, 2]], null],
    [
      'a total past Int32 refuses the split',
      [
        ['a', 2147483647],
        ['b', 1],
      ],
      null,
    ],
  ] as const)('%s', (_name, entries, expected) => {
    const buckets = toBuckets(entries as unknown as unknown[]);
    if (expected === null) expect(buckets).toBeNull();
    else expect({ variants: buckets?.variants, total: buckets?.table.totalWeight }).toEqual(expected);
  });
});

describe('semVer', () => {
  it.each([
    ['1.2.3', '1.2.3'],
    ['v1.2.3', '1.2.3'],
    ['V1.2.3', 'v1.2.3'],
    ['1.2', '1.2.0'],
    ['1', '1.0.0'],
    [2, '2.0.0'],
    ['1.2.3+build', '1.2.3'],
  ] as const)('reads %j as the version %j, as flagd does', (written, version) => {
    expect(semVer([written, '=', version])).toBe(true);
  });

  it.each([
    ['1.2.3-rc.1', '<', '1.2.3', true],
    ['1.10.0', '>', '1.9.0', true],
    ['2.0.0', '>=', '2.0.0', true],
    ['2.0.0', '<=', '1.0.0', false],
    ['2.0.0', '!=', '2.0.0', false],
    ['3.9.9', '^', '3.0.0', true],
    ['4.0.0', '^', '3.0.0', false],
    ['3.0.9', '~', '3.0.0', true],
    ['3.1.0', '~', '3.0.0', false],
  ] as const)('%j %s %j → %j', (left, operator, right, expected) => {
    expect(semVer([left, operator, right])).toBe(expected);
  });

  it.each([
    ['2.0.0.0', '=', '2.0.0'],
    ['build_1', '=', '1.0.0'],
    [null, '=', '1.0.0'],
    ['1.0.0', '==', '1.0.0'],
  ] as const)('has no answer for %j %s %j', (left, operator, right) => {
    expect(semVer([left, operator, right])).toBeNull();
  });

  it('needs exactly three arguments', () => {
    expect(semVer(['1.0.0', '='])).toBeNull();
  });
});

describe('starts_with / ends_with', () => {
  it.each([
    ['starts_with', 'abc', 'ab', true],
    ['starts_with', 'abc', 'bc', false],
    ['ends_with', 'abc', 'bc', true],
    ['ends_with', 'abc', '', true],
    ['starts_with', 123, '1', null],
    ['ends_with', 'abc', 3, null],
  ] as const)('%s(%j, %j) → %j', (kind, text, affix, expected) => {
    expect(stringAffix(kind, [text, affix])).toBe(expected);
  });
});
