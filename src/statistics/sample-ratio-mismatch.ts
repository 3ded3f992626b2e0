import { chiSquaredSf } from './chi-squared.ts';

/** Under this p-value a results page warns of a sample-ratio mismatch (SPEC §13). */
export const SRM_WARNING_P_VALUE = 0.001;

/**
 * The χ² goodness-of-fit p-value of the units each variant received against the split it was meant
 * to receive (gbstats's check_srm): `weights` in any scale; a variant of weight 0 adds no term but
 * still counts in the degrees of freedom, as in gbstats. 1 when no unit was seen.
 */
export function srmPValue(units: readonly number[], weights: readonly number[]): number {
  if (units.length !== weights.length || units.length < 2) {
    throw new RangeError('SRM needs the units and the weight of each of at least two variants');
  }
  if (units.some((u) => !Number.isInteger(u) || u < 0) || weights.some((w) => !Number.isFinite(w) || w < 0)) {
    throw new RangeError('SRM needs whole unit counts ≥ 0 and finite weights ≥ 0');
  }
  const total = units.reduce((sum, u) => sum + u, 0);
  if (total === 0) return 1;
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  let x = 0;
  units.forEach((observed, i) => {
    const weight = weights[i] as number;
    if (weight <= 0) return;
    const expected = (weight / totalWeight) * total;
    x += (observed - expected) ** 2 / expected;
  });
  return chiSquaredSf(x, units.length - 1);
}

/** The SRM check a results page shows: its p-value and whether to warn. */
export function sampleRatioMismatch(
  units: readonly number[],
  weights: readonly number[],
): { readonly pValue: number; readonly warning: boolean } {
  const pValue = srmPValue(units, weights);
  return { pValue, warning: pValue < SRM_WARNING_P_VALUE };
}
