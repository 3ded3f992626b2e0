import { expect, it } from 'vitest';
import { describeSchedulePatch, schedulePatch } from './schedule-actions.ts';

it('each scheduling choice is a flag patch, read back in words', () => {
  expect(describeSchedulePatch(schedulePatch('on', ''))).toBe('turn on');
  expect(describeSchedulePatch(schedulePatch('off', ''))).toBe('turn off');
  expect(schedulePatch('serve', 'blue')).toEqual({ defaultVariant: 'blue', defaultRollout: null });
  expect(describeSchedulePatch(schedulePatch('serve', 'blue'))).toBe('serve "blue" by default');
  expect(describeSchedulePatch(schedulePatch('on-serve', 'blue'))).toBe('turn on, serve "blue" by default');
});

it('a patch made over the API that the choices do not cover is shown as it is', () => {
  expect(describeSchedulePatch({ rules: [] })).toBe('{"rules":[]}');
  expect(describeSchedulePatch({ enabled: true, offVariant: 'off' })).toBe(
    '{"enabled":true,"offVariant":"off"}',
  );
});

it('a release plan’s step, a default rollout alone, is read as its shares', () => {
  const step = {
    defaultRollout: {
      weights: [
        { variant: 'old', weight: 90 },
        { variant: 'new', weight: 10 },
      ],
    },
  };
  expect(describeSchedulePatch(step)).toBe('serve a rollout by default: old 90 %, new 10 %');
});
