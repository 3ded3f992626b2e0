import { describe, expect, test } from 'vitest';
import { parseVersion } from './semver.ts';

describe('parseVersion', () => {
  test.each<[unknown, string | null]>([
    ['1.2.3', '1.2.3'],
    ['v1.2.3', '1.2.3'],
    ['V2.0.0', '2.0.0'],
    ['1.2', '1.2.0'],
    ['1', '1.0.0'],
    [3, '3.0.0'],
    ['2.0.0-beta.1', '2.0.0-beta.1'],
    ['1.0.0+build.5', '1.0.0'],
    ['1.2.3.4', null],
    ['latest', null],
    ['build_1', null],
    ['', null],
    [null, null],
    [true, null],
    [{ major: 1 }, null],
  ])('reads %j as flagd sem_ver does: %j', (raw, expected) => {
    expect(parseVersion(raw)?.version ?? null).toBe(expected);
  });

  test('parses again, rather than growing without bound, after many distinct versions', () => {
    for (let i = 0; i < 5000; i++) expect(parseVersion(`1.0.${i}`)?.patch).toBe(i);
  });
});
