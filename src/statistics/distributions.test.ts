import { describe, expect, it } from 'vitest';
import { chiSquaredSf } from './chi-squared.ts';
import { normalCdf, normalPpf } from './normal-distribution.ts';
import { studentTCdf, studentTPpf } from './student-t.ts';

// Values from scipy.stats (the library gbstats computes with), including the heavy tails and the
// far tails that the fixtures' experiments do not reach: a tiny experiment has 1 or 2 degrees of
// freedom, and a p-value far in the tail must keep its digits.
const close = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.abs(expected));

describe('the distributions under the tests agree with scipy', () => {
  it.each([
    [0.975, 1, 12.706204736174694],
    [0.975, 2, 4.302652729749462],
    [0.95, 2.5, 2.5582186141359355],
    [0.025, 2, -4.302652729749462],
  ])("Student's t quantile at %s with %s degrees of freedom", (p, dof, expected) => {
    close(studentTPpf(p, dof), expected);
  });

  it.each([
    [-3, 1.3, 0.07817229544048929],
    [-40, 30, 6.863022597203209e-28],
  ])("Student's t distribution at %s with %s degrees of freedom", (t, dof, expected) => {
    close(studentTCdf(t, dof), expected);
  });

  it.each([
    [-5, 2.866515718791933e-7],
    [-30, 4.906713927147908e-198],
  ])('normal distribution at %s', (z, expected) => close(normalCdf(z), expected));

  it.each([
    [0.975, 1.959963984540054],
    [1e-12, -7.034483825301131],
  ])('normal quantile at %s', (p, expected) => close(normalPpf(p), expected));

  it.each([
    [3.841458820694124, 1, 0.04999999999999989],
    [200, 3, 4.218541107192018e-43],
    [0.5, 4, 0.9735009788392561],
  ])('χ² survival at %s with %s degrees of freedom', (x, dof, expected) =>
    close(chiSquaredSf(x, dof), expected),
  );
});
