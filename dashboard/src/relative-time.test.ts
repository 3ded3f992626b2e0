import { expect, it } from 'vitest';
import { relativeTime } from './relative-time.ts';

it('a moment still to come within the minute reads "in 1 minute", never "just now"', () => {
  expect(relativeTime(20)).toBe('in 1 minute');
  expect(relativeTime(59)).toBe('in 1 minute');
  expect(relativeTime(60)).toBe('in 1 minute');
  expect(relativeTime(150)).toBe('in 3 minutes');
});

it('a moment just past reads "just now", older ones in their largest unit', () => {
  expect(relativeTime(-10)).toBe('just now');
  expect(relativeTime(-50)).toBe('1 minute ago');
  expect(relativeTime(-7200)).toBe('2 hours ago');
  expect(relativeTime(-3 * 86400)).toBe('3 days ago');
});
