import { describe, expect, it } from 'vitest';
import {
  type Milestone,
  parseDuration,
  type ReleaseSteps,
  shapeProblems,
  treatmentShare,
} from './release-plan.ts';

const milestone = (share: number, holdSeconds: number | null = 600): Milestone => ({
  name: `${share} %`,
  weights: [
    { variant: 'old', weight: 100 - share },
    { variant: 'new', weight: share },
  ],
  holdSeconds,
});

const steps = (milestones: Milestone[], more: Partial<ReleaseSteps> = {}): ReleaseSteps => ({
  milestones,
  guards: [],
  onBreach: 'rollback',
  guardIntervalSeconds: 60,
  ...more,
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30],
    ['10m', 600],
    ['2h', 7200],
    ['1d', 86_400],
    ['1.5m', 90],
    ['0s', 0],
    ['-5m', -300],
  ])('reads %s as %d seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it.each(['', '10', 'ten minutes', '5w', 'm'])('reads "%s" as no duration', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});

describe('treatmentShare', () => {
  it.each([
    [
      [
        { variant: 'old', weight: 90 },
        { variant: 'new', weight: 10 },
      ],
      10,
    ],
    [
      [
        { variant: 'old', weight: 1 },
        { variant: 'new', weight: 1 },
      ],
      50,
    ],
    [[{ variant: 'new', weight: 7 }], 100],
    [[{ variant: 'old', weight: 0 }], 0],
  ])('%j releases %d %%', (weights, share) => expect(treatmentShare(weights, 'old')).toBe(share));
});

describe('shapeProblems', () => {
  const variants = ['old', 'new'];

  it('finds nothing wrong with 10 → 50 → 100, the last held until someone proceeds', () => {
    expect(
      shapeProblems(steps([milestone(10), milestone(50), milestone(100, null)]), 'old', variants),
    ).toEqual([]);
  });

  it.each([
    ['a share that falls', [milestone(50), milestone(20)], '/milestones/1/rollout', 'must release more'],
    ['a share that stays', [milestone(50), milestone(50)], '/milestones/1/rollout', 'must release more'],
    ['a hold of 0', [milestone(10, 0)], '/milestones/0/hold', 'must be longer than 0'],
    ['a negative hold', [milestone(10, -60)], '/milestones/0/hold', 'must be longer than 0'],
  ])('refuses %s, naming the field', (_, milestones, path, message) => {
    expect(shapeProblems(steps(milestones), 'old', variants)).toEqual([
      { path, message: expect.stringContaining(message) },
    ]);
  });

  it('refuses a variant the flag lacks, a guard interval of 0, a PromQL template without $variant and a name used twice', () => {
    const unknown: Milestone = { name: 'x', weights: [{ variant: 'newer', weight: 1 }], holdSeconds: 60 };
    const query = { kind: 'prometheus', query: 'sum(errors)', threshold: { above: 1 } } as const;
    const problems = shapeProblems(
      steps([unknown], {
        guardIntervalSeconds: 0,
        guards: [
          { ...query, name: 'errors' },
          { ...query, name: 'errors', query: 'sum(errors{v="$variant"})' },
        ],
      }),
      'old',
      variants,
    );
    expect(problems.map((p) => p.path)).toEqual([
      '/milestones/0/rollout',
      '/guardInterval',
      '/guards/0/query',
      '/guards/1/name',
    ]);
  });
});
