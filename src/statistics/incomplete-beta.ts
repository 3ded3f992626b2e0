import { logBeta } from './log-gamma.ts';

const EPSILON = 1e-16;
const TINY = 1e-300;
const MAX_ITERATIONS = 100_000;

/**
 * The regularized incomplete beta function I_x(a, b), given x and y = 1 − x separately so that a
 * caller who knows the small one exactly (a t tail) loses no digits to the subtraction.
 */
export function incompleteBeta(x: number, y: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  // The continued fraction converges fast below (a + 1) / (a + b + 2); above, use the symmetry
  // I_x(a, b) = 1 − I_y(b, a) (Numerical Recipes §6.4).
  if (x < (a + 1) / (a + b + 2)) return front(x, y, a, b) * continuedFraction(x, a, b);
  return 1 - front(y, x, b, a) * continuedFraction(y, b, a);
}

/** x^a y^b / (a B(a, b)), in logarithms so that large a and b do not overflow. */
function front(x: number, y: number, a: number, b: number): number {
  return Math.exp(a * Math.log(x) + b * Math.log(y) - logBeta(a, b)) / a;
}

// Modified Lentz evaluation of the continued fraction for I_x(a, b).
function continuedFraction(x: number, a: number, b: number): number {
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    const even = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + even * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + even / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + odd * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + odd / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h;
}
