import type { EffectProblem } from './effect-moments.ts';
import {
  type FrequentistOptions,
  type FrequentistResult,
  type PreparedComparison,
  prepareComparison,
  uninformative,
} from './frequentist-result.ts';
import type { TestStatistic } from './statistic.ts';

/** The options of the sequential tests: those of the fixed-horizon test and the tuning parameter. */
export interface SequentialOptions extends FrequentistOptions {
  /**
   * The total sample size (both variants) at which the confidence sequence is tightest; gbstats's
   * default 5,000. Any value keeps the guarantee; a good guess only narrows the interval.
   */
  readonly tuningParameter?: number;
}

/** The side on which a one-sided sequential interval is closed. */
export type Side = 'lesser' | 'greater';

/** ρ of the normal-mixture confidence sequence that is tightest at n = `tuning` (eq. 161 of the paper). */
export function sequentialRho(alpha: number, tuning: number, twoSided: boolean): number {
  const a = twoSided ? alpha : 2 * alpha;
  return Math.sqrt((-2 * Math.log(a) + Math.log(-2 * Math.log(a) + 1)) / tuning);
}

function tuningOf(options: SequentialOptions): number {
  const tuning = options.tuningParameter ?? 5000;
  if (!(tuning > 0 && Number.isFinite(tuning)))
    throw new RangeError(`tuningParameter must be > 0, not ${tuning}`);
  return tuning;
}

// Asymptotic confidence sequence (Waudby-Smith et al., eq. 9): the half-width at n units for the
// per-unit variance s2 = se² n.
function twoSidedHalfwidth(s2: number, n: number, rho: number, alpha: number): number {
  const nr2 = n * rho ** 2 + 1;
  return Math.sqrt(s2) * Math.sqrt((2 * nr2 * Math.log(Math.sqrt(nr2) / alpha)) / (n * rho) ** 2);
}

// The one-sided boundary (eq. 134 of the paper).
function oneSidedHalfwidth(s2: number, n: number, rho: number, alpha: number): number {
  const nr2 = n * rho ** 2 + 1;
  return Math.sqrt(((s2 * 2 * nr2) / (n * rho) ** 2) * Math.log(1 + Math.sqrt(nr2) / (2 * alpha)));
}

const unitsOf = (prepared: PreparedComparison): number => prepared.control.n + prepared.treatment.n;

/** A comparison as both confidence sequences read it: the effect, its standard error, α, the units n and ρ. */
interface SequentialReading {
  readonly pointEstimate: number;
  readonly standardError: number;
  readonly alpha: number;
  readonly n: number;
  readonly rho: number;
  readonly problem?: undefined;
}

/**
 * What both sequential tests read off a comparison, or the problem that leaves it unreadable. A
 * one-sided mixture needs α below 0.5: refused before anything else, even an unreadable comparison.
 */
function readSequential(
  control: TestStatistic,
  treatment: TestStatistic,
  options: SequentialOptions,
  twoSided: boolean,
): SequentialReading | { readonly problem: EffectProblem } {
  const prepared = prepareComparison(control, treatment, options);
  const { moments, alpha } = prepared;
  if (!twoSided && alpha >= 0.5) throw new RangeError('a one-sided sequential test needs alpha below 0.5');
  if (moments.problem !== undefined) return { problem: moments.problem };
  const { pointEstimate, standardError } = moments;
  const rho = sequentialRho(alpha, tuningOf(options), twoSided);
  return { pointEstimate, standardError, alpha, n: unitsOf(prepared), rho };
}

/**
 * An always-valid two-sided test (gbstats's SequentialTwoSidedTTest): its interval is a confidence
 * sequence, so it may be read after every new unit and still errs with probability ≤ α overall.
 */
export function sequentialTwoSidedTTest(
  control: TestStatistic,
  treatment: TestStatistic,
  options: SequentialOptions = {},
): FrequentistResult {
  const reading = readSequential(control, treatment, options, true);
  if (reading.problem !== undefined) return uninformative(reading.problem);
  const { pointEstimate, standardError, alpha, n, rho } = reading;
  const halfwidth = twoSidedHalfwidth(standardError ** 2 * n, n, rho, alpha);
  // The always-valid p-value is 1 / the mixture e-value (eq. 155 of the paper), capped at 1.
  const st2 = (pointEstimate ** 2 * n) / standardError ** 2;
  const nr2 = n * rho ** 2 + 1;
  const eValue = Math.exp((rho ** 2 * st2) / (2 * nr2)) / Math.sqrt(nr2);
  return {
    expected: pointEstimate,
    ci: [pointEstimate - halfwidth, pointEstimate + halfwidth],
    pValue: Math.min(1 / eValue, 1),
    uplift: { mean: pointEstimate, stddev: standardError },
    errorMessage: null,
  };
}

/**
 * The one-sided always-valid interval (gbstats's SequentialOneSidedTreatmentLesserTTest and
 * …GreaterTTest): `lesser` bounds the effect from above, (−∞, upper]; `greater` from below.
 * No p-value: gbstats finds its one-sided one by bisection, which the guards do not need.
 */
export function sequentialOneSidedTTest(
  control: TestStatistic,
  treatment: TestStatistic,
  side: Side,
  options: SequentialOptions = {},
): FrequentistResult {
  const reading = readSequential(control, treatment, options, false);
  if (reading.problem !== undefined) {
    const { pValue: _, ...interval } = uninformative(reading.problem);
    return interval;
  }
  const { pointEstimate, standardError, alpha, n, rho } = reading;
  const halfwidth = oneSidedHalfwidth(standardError ** 2 * n, n, rho, alpha);
  return {
    expected: pointEstimate,
    ci: side === 'lesser' ? [null, pointEstimate + halfwidth] : [pointEstimate - halfwidth, null],
    uplift: { mean: pointEstimate, stddev: standardError },
    errorMessage: null,
  };
}
