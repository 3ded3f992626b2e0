import { upperIncompleteGamma } from './incomplete-gamma.ts';

const SQRT_TWO_PI = Math.sqrt(2 * Math.PI);

/** The complementary error function, erfc(x) = Q(½, x²) for x ≥ 0, accurate in both tails. */
export function erfc(x: number): number {
  const upper = upperIncompleteGamma(0.5, x * x);
  return x >= 0 ? upper : 2 - upper;
}

/** The standard normal density φ(z). */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / SQRT_TWO_PI;
}

/** The standard normal distribution function Φ(z), accurate in the lower tail. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

// Acklam's rational approximation (relative error 1.15e-9), then refined below.
const A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
  2.506628277459239,
];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

const poly = (c: readonly number[], x: number): number => c.reduce((acc, k) => acc * x + k, 0);

function acklam(p: number): number {
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(C, q) / (poly(D, q) * q + 1);
  }
  if (p > 1 - P_LOW) return -acklam(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(A, r) * q) / (poly(B, r) * r + 1);
}

/** The standard normal quantile Φ⁻¹(p) for 0 < p < 1: ±Infinity at 0 and 1. */
export function normalPpf(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  let z = acklam(p);
  // Two Halley steps on the accurate Φ take the approximation to full double precision.
  for (let i = 0; i < 2; i++) {
    const e = normalCdf(z) - p;
    const u = e * SQRT_TWO_PI * Math.exp(0.5 * z * z);
    z -= u / (1 + 0.5 * z * u);
  }
  return z;
}
