import { describe, expect, test } from 'vitest';
import { VersionedMap } from './versioned-map.ts';

const contents = (map: VersionedMap<string, number>) => Object.fromEntries([...map.entries()].sort());

describe('VersionedMap', () => {
  test('a new version has the changes; the version it came from is unchanged', () => {
    const first = VersionedMap.of([
      ['a', 1],
      ['b', 2],
    ]);
    const second = first.updated([
      ['a', 10],
      ['c', 3],
      ['b', undefined],
    ]);
    expect(contents(second)).toEqual({ a: 10, c: 3 });
    expect(second.size).toBe(2);
    expect(contents(first)).toEqual({ a: 1, b: 2 });
    expect(first.size).toBe(2);
    expect([first.get('a'), first.get('b'), first.get('c')]).toEqual([1, 2, undefined]);
    expect(second.has('b')).toBe(false);
  });

  test('every version of a long history reads as it was made', () => {
    const versions = [VersionedMap.of<string, number>()];
    const expected: Record<string, number>[] = [{}];
    for (let i = 1; i <= 200; i++) {
      const key = `k${i % 7}`;
      const remove = i % 5 === 0;
      versions.push(
        (versions.at(-1) as VersionedMap<string, number>).updated([[key, remove ? undefined : i]]),
      );
      const next = { ...(expected.at(-1) as Record<string, number>) };
      if (remove) delete next[key];
      else next[key] = i;
      expected.push(next);
    }
    versions.forEach((version, i) => {
      expect(contents(version), `version ${i}`).toEqual(expected[i]);
      expect(version.size).toBe(Object.keys(expected[i] as object).length);
      for (let k = 0; k < 7; k++) expect(version.get(`k${k}`)).toBe(expected[i]?.[`k${k}`]);
    });
  });

  test('a version made from an older one branches off without changing either line', () => {
    const base = VersionedMap.of([['a', 1]]);
    const main = base.updated([['a', 2]]).updated([['b', 3]]);
    const branch = base.updated([['c', 4]]);
    const onBranch = branch.updated([['a', 5]]);
    expect(contents(base)).toEqual({ a: 1 });
    expect(contents(main)).toEqual({ a: 2, b: 3 });
    expect(contents(branch)).toEqual({ a: 1, c: 4 });
    expect(contents(onBranch)).toEqual({ a: 5, c: 4 });
    expect(contents(main.updated([['b', undefined]]))).toEqual({ a: 2 });
    expect(contents(main)).toEqual({ a: 2, b: 3 });
  });
});
