import { upperIncompleteGamma } from './incomplete-gamma.ts';

/** The χ² survival function P(X > x) with `dof` degrees of freedom. */
export function chiSquaredSf(x: number, dof: number): number {
  return upperIncompleteGamma(dof / 2, x / 2);
}
