import { describe, expect, it } from 'vitest';
import { EvaluationCounter } from './evaluation-counter.ts';

const MINUTE = 60_000;
const T0 = 29_000_000 * MINUTE;

describe('EvaluationCounter', () => {
  it('counts per flag, environment, variant, reason and minute, and drains once', () => {
    const now = T0 + 5_000;
    const counter = new EvaluationCounter();
    counter.count('p1', 'production', { key: 'a', variant: 'on', reason: 'targeting' }, now);
    counter.count('p1', 'production', { key: 'a', variant: 'on', reason: 'targeting' }, now);
    counter.countAll(
      'p1',
      'production',
      [
        { key: 'a', variant: 'off', reason: 'default' },
        { key: 'b', variant: null, reason: 'disabled' },
      ],
      now,
    );
    counter.count('p1', 'staging', { key: 'a', variant: 'on', reason: 'split' }, now);
    // The next minute starts a new bucket.
    counter.count('p1', 'production', { key: 'a', variant: 'on', reason: 'targeting' }, now + MINUTE);

    const rows = counter
      .drain()
      .map((r) => [r.environment, r.flagKey, r.minute - T0 / MINUTE, r.variant, r.reason, r.count]);
    expect(rows.sort()).toEqual(
      [
        ['production', 'a', 0, 'on', 'targeting', 2],
        ['production', 'a', 0, 'off', 'default', 1],
        ['production', 'b', 0, null, 'disabled', 1],
        ['staging', 'a', 0, 'on', 'split', 1],
        ['production', 'a', 1, 'on', 'targeting', 1],
      ].sort(),
    );
    expect(counter.drain()).toEqual([]);
  });

  it('adds counts a failed flush gave back to those counted since', () => {
    const counter = new EvaluationCounter();
    counter.count('p1', 'production', { key: 'a', variant: 'on', reason: 'split' }, T0);
    const failed = counter.drain();
    counter.count('p1', 'production', { key: 'a', variant: 'on', reason: 'split' }, T0);
    counter.giveBack(failed);
    expect(counter.drain()).toEqual([
      {
        projectId: 'p1',
        flagKey: 'a',
        environment: 'production',
        minute: T0 / MINUTE,
        variant: 'on',
        reason: 'split',
        count: 2,
      },
    ]);
  });
});
