import { describe, expect, it } from 'vitest';
import { type TestStatistic, twoSidedTTest, variantSummary } from './index.ts';

const conversion: TestStatistic = { kind: 'proportion', n: 1000, sum: 100 };
const count: TestStatistic = { kind: 'sample-mean', n: 1000, sum: 2500, sumSquares: 9000 };

describe('statistics the tests refuse, with a reason that names the field', () => {
  it.each<[string, TestStatistic, RegExp]>([
    ['a fractional n', { kind: 'proportion', n: 10.5, sum: 1 }, /control: n must be a whole number/],
    [
      'a negative n',
      { kind: 'sample-mean', n: -1, sum: 0, sumSquares: 0 },
      /control: n must be a whole number/,
    ],
    ['more conversions than units', { kind: 'proportion', n: 10, sum: 11 }, /between 0 and n \(10\), not 11/],
    [
      'a sum that is not a number',
      { kind: 'sample-mean', n: 10, sum: Number.NaN, sumSquares: 1 },
      /sum must be a finite/,
    ],
    [
      'a negative sum of squares',
      { kind: 'sample-mean', n: 10, sum: 1, sumSquares: -1 },
      /sumSquares must be/,
    ],
    [
      'CUPED over metrics of two kinds',
      { kind: 'regression-adjusted', n: 10, post: conversion, pre: count, postPreSumOfProducts: 1 },
      /same kind/,
    ],
    [
      'CUPED whose pre metric counts other units',
      {
        kind: 'regression-adjusted',
        n: 1000,
        post: conversion,
        pre: { kind: 'proportion', n: 900, sum: 50 },
        postPreSumOfProducts: 20,
      },
      /count its n units/,
    ],
  ])('refuses %s', (_, control, message) => {
    expect(() => twoSidedTTest(control, conversion)).toThrow(message);
  });

  it('refuses to compare a conversion with a count', () => {
    expect(() => twoSidedTTest(conversion, count)).toThrow(/must be of the same kind/);
  });

  it.each([0, 1, -0.1, Number.NaN])('refuses alpha %s', (alpha) => {
    expect(() => twoSidedTTest(conversion, conversion, { alpha })).toThrow(/alpha must be between 0 and 1/);
  });
});

describe("a variant's summary", () => {
  it('gives units, mean and standard deviation as observed, before any CUPED adjustment', () => {
    expect(variantSummary(conversion)).toMatchObject({ units: 1000, mean: 0.1 });
    expect(variantSummary(conversion).stddev).toBeCloseTo(0.3, 12);
    const adjusted = variantSummary({
      kind: 'regression-adjusted',
      n: 1000,
      post: count,
      pre: { kind: 'sample-mean', n: 1000, sum: 2000, sumSquares: 7000 },
      postPreSumOfProducts: 6000,
    });
    expect(adjusted.mean).toBe(2.5);
    expect(adjusted.stddev).toBeCloseTo(Math.sqrt((9000 - 2500 ** 2 / 1000) / 999), 12);
  });
});
