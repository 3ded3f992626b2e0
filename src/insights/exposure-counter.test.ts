import { describe, expect, it } from 'vitest';
import type { EvaluationDetail } from '../domain/evaluation-result.ts';
import type { RunningExperiments } from '../domain/exposure.ts';
import { ExposureCounter, MAX_PENDING_EXPOSURES } from './exposure-counter.ts';

const EVERYWHERE: RunningExperiments = {
  covering: (_project, _environment, flagKey) =>
    flagKey === 'banner' ? { key: 'exp', variants: ['on', 'off'] } : undefined,
};
const where = { projectId: 'prj', environment: 'production', actor: { requestId: 'r' } };
const result = (variant: string | null, key = 'banner') =>
  ({ key, variant, reason: 'split' }) as EvaluationDetail;

describe('ExposureCounter', () => {
  it('keeps one exposure per unit: its first variant, multiple once it saw another', () => {
    const counter = new ExposureCounter(EVERYWHERE);
    counter.served(where, result('on'), 2000, 'u1');
    counter.served(where, result('on'), 3000, 'u1');
    counter.served(where, result('off'), 1000, 'u2');
    counter.see({
      projectId: 'prj',
      environment: 'production',
      flagKey: 'banner',
      unit: 'u2',
      variant: 'on',
      atMs: 4000,
    });
    expect(counter.drain()).toEqual([
      {
        projectId: 'prj',
        environment: 'production',
        experiment: 'exp',
        unit: 'u1',
        variant: 'on',
        firstAt: 2000,
        multiple: false,
      },
      {
        projectId: 'prj',
        environment: 'production',
        experiment: 'exp',
        unit: 'u2',
        variant: 'off',
        firstAt: 1000,
        multiple: true,
      },
    ]);
    expect(counter.drain()).toEqual([]);
  });

  it('ignores units without a targeting key, variants the experiment does not compare, and flags it does not cover', () => {
    const counter = new ExposureCounter(EVERYWHERE);
    counter.served(where, result('on'), 1000);
    counter.served(where, result('blue'), 1000, 'u1');
    counter.served(where, result(null), 1000, 'u1');
    counter.served(where, result('on', 'other'), 1000, 'u1');
    counter.servedAll();
    expect(counter.drain()).toEqual([]);
  });

  it('writes a unit once: served its variant again after a flush, nothing is pending', () => {
    const counter = new ExposureCounter(EVERYWHERE);
    counter.served(where, result('on'), 1000, 'u1');
    counter.written(counter.drain());
    counter.served(where, result('on'), 5000, 'u1');
    expect(counter.drain()).toEqual([]);
    // Another variant is news: the store marks it multiple.
    counter.served(where, result('off'), 6000, 'u1');
    expect(counter.drain()).toMatchObject([{ unit: 'u1', variant: 'off' }]);
  });

  it('holds at most so many pending units between flushes, and counts what it dropped', () => {
    const counter = new ExposureCounter(EVERYWHERE);
    for (let i = 0; i < MAX_PENDING_EXPOSURES + 10; i++) counter.served(where, result('on'), 1000, `u${i}`);
    expect(counter.dropped).toBe(10);
    expect(counter.drain()).toHaveLength(MAX_PENDING_EXPOSURES);
  });

  it('gives back what a flush could not write, merged with what came since', () => {
    const counter = new ExposureCounter(EVERYWHERE);
    counter.served(where, result('on'), 1000, 'u1');
    const failed = counter.drain();
    counter.served(where, result('off'), 2000, 'u1');
    counter.giveBack(failed);
    expect(counter.drain()).toMatchObject([{ unit: 'u1', variant: 'on', firstAt: 1000, multiple: true }]);
  });
});
