import { describe, expect, it } from 'vitest';
import { jsonProblem } from './json-problem.ts';

describe('jsonProblem', () => {
  it.each([
    ['{\n  "key": "a",\n}', 'a trailing comma before "}"', 14],
    ['{\n  "tags": ["a",]\n}', 'a trailing comma before "]"', 16],
    ['{\n  key: "a"\n}', 'a key must be in double quotes', 4],
    ['{\n  // the banner\n  "key": "a"\n}', 'comments are not allowed in JSON', 4],
    ['{ /* c */ "key": "a" }', 'comments are not allowed in JSON', 2],
    ['{\n  "key": \'a\'\n}', 'strings must be in double quotes', 11],
    ['{\n  "key": "a\n"\n}', 'a string may not hold a line break or control character (write \\n)', 13],
    ['{ "key": "a\\x" }', 'unknown escape "\\x" in a string', 11],
    ['{ "key": "a', 'a string is never closed', 9],
    ['{ "a": 1 } x', 'more after the JSON value', 11],
    ['{ "a": tru }', 'unexpected "t"', 7],
    ['{ "a": 1', 'the file ends before the JSON does', 8],
    ['{ "a" 1 }', 'expected ":" after the key', 6],
    ['[1 2]', 'expected "," or "]"', 3],
    ['', 'the file ends before the JSON does', 0],
  ])('finds where %j stops being JSON', (text, message, offset) => {
    expect(jsonProblem(text)).toEqual({ offset, message });
  });

  it.each([
    '{}',
    '[]',
    '{\n\t"a": [1, -2.5e3, true, false, null, "x\\"y\\u00e9"],\n\t"b": {"c": {}}\n}\n',
    '"text"',
    '0',
  ])('finds nothing wrong with %j', (text) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(jsonProblem(text)).toBeUndefined();
  });
});
