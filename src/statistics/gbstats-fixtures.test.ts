import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  effectBayesianABTest,
  type GaussianPrior,
  sampleRatioMismatch,
  sequentialOneSidedTTest,
  sequentialTwoSidedTTest,
  type TestStatistic,
  twoSidedTTest,
} from './index.ts';

// Inputs and gbstats's outputs, produced as test/fixtures/gbstats/README.md says.
const FIXTURES = join(import.meta.dirname, '../../test/fixtures/gbstats');
const read = <T>(file: string): { cases: T[] } => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8'));

interface Config {
  readonly differenceType: 'relative' | 'absolute';
  readonly alpha: number;
  readonly tuningParameter?: number;
  readonly inverse?: boolean;
  readonly prior?: GaussianPrior;
}

interface Case {
  readonly name: string;
  readonly test:
    | 'twoSided'
    | 'sequential'
    | 'sequentialOneSidedLesser'
    | 'sequentialOneSidedGreater'
    | 'bayesian';
  readonly config: Config;
  readonly control: TestStatistic;
  readonly treatment: TestStatistic;
  readonly expected: Record<string, unknown>;
}

function run({ test, config, control, treatment }: Case): unknown {
  if (test === 'twoSided') return twoSidedTTest(control, treatment, config);
  if (test === 'sequential') return sequentialTwoSidedTTest(control, treatment, config);
  if (test === 'bayesian') return effectBayesianABTest(control, treatment, config);
  return sequentialOneSidedTTest(
    control,
    treatment,
    test === 'sequentialOneSidedLesser' ? 'lesser' : 'greater',
    config,
  );
}

const RELATIVE = 1e-6;

/** Every number of `expected` within 1e-6 relative in `actual` (paths name the ones that are not). */
function differences(expected: unknown, actual: unknown, path = ''): string[] {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const close = Math.abs(expected - actual) <= RELATIVE * Math.max(Math.abs(expected), Math.abs(actual));
    return expected === actual || close ? [] : [`${path}: gbstats ${expected}, ours ${actual}`];
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object')
      return [`${path}: gbstats ${JSON.stringify(expected)}, ours ${actual}`];
    return Object.entries(expected).flatMap(([key, value]) =>
      differences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`),
    );
  }
  return expected === actual
    ? []
    : [`${path}: gbstats ${JSON.stringify(expected)}, ours ${JSON.stringify(actual)}`];
}

describe('the statistics equal gbstats on the same inputs (within 1e-6 relative)', () => {
  const { cases } = read<Case>('tests.json');

  it('has fixtures of every test, CUPED and both difference types', () => {
    const kinds = new Set(cases.map((c) => `${c.test} ${c.config.differenceType} ${c.control.kind}`));
    expect(kinds.size).toBe(5 * 2 * 3);
    expect(cases.filter((c) => c.expected.errorMessage === null).length).toBeGreaterThan(1500);
  });

  it.each(cases.map((c) => [`${c.test} ${JSON.stringify(c.config)} on ${c.name}`, c] as const))(
    '%s',
    (_, c) => {
      expect(differences(c.expected, run(c))).toEqual([]);
    },
  );

  const srm = read<{ users: number[]; weights: number[]; pValue: number }>('srm.json').cases;
  it.each(srm.map((c) => [c.users.join('/'), c.weights.map((w) => w.toFixed(3)).join('/'), c] as const))(
    'SRM of %s units against a %s split',
    (_, __, c) => {
      expect(differences(c.pValue, sampleRatioMismatch(c.users, c.weights).pValue)).toEqual([]);
    },
  );
});
