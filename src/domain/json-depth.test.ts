import { describe, expect, it } from 'vitest';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts';

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('jsonTextNestsDeeperThan', () => {
  it.each([
    ['{}', 0, true],
    ['{}', 1, false],
    ['[[1],[2]]', 2, false],
    ['[[1],[2]]', 1, true],
    [nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH, false],
    [nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, true],
    // Brackets inside strings are text, escaped quotes included.
    [`{"a":"${'['.repeat(100)}"}`, 1, false],
    [`{"a":"\\"[[[[","b":"\\\\"}`, 1, false],
    [`["\\\\",[[1]]]`, 2, true],
  ])('%s deeper than %i: %s', (text, max, expected) => {
    expect(jsonTextNestsDeeperThan(text, max)).toBe(expected);
  });

  it('agrees with the parsed value', () => {
    for (const text of [nested(3), '[{"a":[{"b":[]}]}]', '{"s":"{[{["}']) {
      for (const max of [1, 2, 3, 4, 5]) {
        expect(jsonTextNestsDeeperThan(text, max), `${text} ${max}`).toBe(
          nestsDeeperThan(JSON.parse(text), max),
        );
      }
    }
  });
});

describe('nestsDeeperThan', () => {
  it('walks 10,000 levels without recursion', () => {
    expect(nestsDeeperThan(JSON.parse(nested(10_000)))).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: null }], c: 'x' }, 3)).toBe(false);
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });
});
