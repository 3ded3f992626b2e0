import { describe, expect, it } from 'vitest';
import { splitPath } from './split-path.ts';

describe('splitPath', () => {
  it.each([
    ['a', ['a']],
    ['a.b.c', ['a', 'b', 'c']],
    ['a\\.b.c', ['a.b', 'c']],
    ['a\\\\.b', ['a\\', 'b']],
    ['a\\/b', ['a/b']],
    ['a\\b', ['a\\b']],
    ['', []],
    ['.', ['']],
    ['..', ['', '']],
    ['.h', ['', 'h']],
    ['$flagd.timestamp', ['$flagd', 'timestamp']],
  ])('splits %j as flagd does', (path, parts) => {
    expect(splitPath(path)).toEqual(parts);
  });
});
