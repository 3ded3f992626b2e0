import { incompleteBeta } from './incomplete-beta.ts';
import { logBeta } from './log-gamma.ts';
import { normalPpf } from './normal-distribution.ts';

/** P(T > t) for t ≥ 0 under Student's t with `dof` degrees of freedom (any real dof > 0). */
function upperTail(t: number, dof: number): number {
  const t2 = t * t;
  return 0.5 * incompleteBeta(dof / (dof + t2), t2 / (dof + t2), dof / 2, 0.5);
}

/** Student's t distribution function P(T ≤ t). */
export function studentTCdf(t: number, dof: number): number {
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Number.POSITIVE_INFINITY) return 1;
  if (t === Number.NEGATIVE_INFINITY) return 0;
  const tail = upperTail(Math.abs(t), dof);
  return t >= 0 ? 1 - tail : tail;
}

function studentTPdf(t: number, dof: number): number {
  return Math.exp(-((dof + 1) / 2) * Math.log1p((t * t) / dof) - 0.5 * Math.log(dof) - logBeta(dof / 2, 0.5));
}

/** Student's t quantile: the t with P(T ≤ t) = p, for 0 < p < 1. */
export function studentTPpf(p: number, dof: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  if (p < 0.5) return -studentTPpf(1 - p, dof);
  const q = 1 - p;
  // Start from the Cornish–Fisher expansion around the normal quantile (a step or two from the
  // root at the dof of experiments), then take Newton steps kept inside a bracket, bisecting (or
  // doubling while there is no upper bound) when a step leaves it: the tail is monotone, so this
  // converges for every dof, heavy tails included.
  const z = normalPpf(p);
  let t = z + (z ** 3 + z) / (4 * dof) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * dof ** 2);
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 200; i++) {
    const excess = upperTail(t, dof) - q;
    if (excess > 0) low = t;
    else high = t;
    let next = t + excess / studentTPdf(t, dof);
    if (!(next > low && next < high)) next = high === Number.POSITIVE_INFINITY ? 2 * t : 0.5 * (low + high);
    if (Math.abs(next - t) <= 1e-14 * Math.abs(t)) return next;
    t = next;
  }
  return t;
}
