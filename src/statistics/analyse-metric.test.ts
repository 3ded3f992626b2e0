import { describe, expect, it } from 'vitest';
import {
  type AnalysisSettings,
  analyseMetric,
  type FrequentistResult,
  type SampleMeanStatistic,
} from './index.ts';

// The statistics of gbstats's TestTwoSidedTTest (packages/stats/tests/frequentist/test_tests.py),
// whose published figures (to 5 decimals) the rows must show.
const control: SampleMeanStatistic = { kind: 'sample-mean', n: 3407, sum: 1396.87, sumSquares: 52377.9767 };
const treatment: SampleMeanStatistic = { kind: 'sample-mean', n: 3461, sum: 2422.7, sumSquares: 134698.29 };

function row<S extends AnalysisSettings>(settings: S) {
  const [only] = analyseMetric(control, [treatment], settings).treatments;
  if (only === undefined) throw new Error('one treatment, one row');
  return only;
}

const figures = (result: FrequentistResult) =>
  [result.expected, result.ci[0], result.ci[1], result.pValue].map((v) =>
    Number((v ?? Number.NaN).toFixed(5)),
  );
const width = (result: FrequentistResult) => (result.ci[1] ?? 0) - (result.ci[0] ?? 0);

describe("one metric's results, as a results page shows them", () => {
  it('gives each variant its units and mean, and the frequentist relative and absolute effect over control', () => {
    const results = analyseMetric(control, [treatment], { analysis: 'frequentist', goal: 'increase' });
    expect(results.control).toMatchObject({ units: 3407, mean: 1396.87 / 3407 });
    const { relative, absolute, ...summary } = row({ analysis: 'frequentist', goal: 'increase' });
    expect(summary).toMatchObject({ units: 3461, mean: 0.7 });
    expect(figures(relative)).toEqual([0.70732, -0.03526, 1.44989, 0.06191]);
    expect(figures(absolute)).toEqual([0.29, 0.04538, 0.53462, 0.02016]);
  });

  it('widens the interval when the experiment is sequential, which may be read at every look', () => {
    const fixed = row({ analysis: 'frequentist', goal: 'increase' }).relative;
    const sequential = row({ analysis: 'frequentist', sequential: true, goal: 'increase' }).relative;
    expect(width(sequential)).toBeGreaterThan(width(fixed));
  });

  it('turns the Bayesian chance to win around for a metric whose goal is to decrease', () => {
    const up = row({ analysis: 'bayesian', goal: 'increase' }).relative.chanceToWin;
    const down = row({ analysis: 'bayesian', goal: 'decrease' }).relative.chanceToWin;
    expect(up).toBeGreaterThan(0.95);
    expect(down).toBeCloseTo(1 - up, 12);
  });
});
