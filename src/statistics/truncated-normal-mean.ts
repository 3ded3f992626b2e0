import { normalCdf, normalPdf } from './normal-distribution.ts';

/** Beyond this many standard deviations the first Mills-ratio term is accurate to < 1e-6 (gbstats). */
const MILLS_THRESHOLD = 1e3;

/** E[X | X < 0] ('below-zero') or E[X | X > 0] ('above-zero') for X ~ N(mu, sigma²). */
export function truncatedNormalMean(mu: number, sigma: number, part: 'below-zero' | 'above-zero'): number {
  // Standardised bound, signed so that the kept part of the line lies beyond it: z → the tail.
  const z = part === 'below-zero' ? mu / sigma : -mu / sigma;
  if (z >= MILLS_THRESHOLD) return part === 'below-zero' ? -sigma / z : sigma / z;
  // The inverse Mills ratio φ(z) / Φ(−z), from the tail so that it keeps its digits.
  const mills = normalPdf(z) / normalCdf(-z);
  return part === 'below-zero' ? mu - sigma * mills : mu + sigma * mills;
}
