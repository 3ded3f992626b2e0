import { describe, expect, test } from 'vitest';
import { PatchedMap } from './patched-map.ts';

const entries = (map: PatchedMap<number>, keys: readonly string[]) => keys.map((k) => [k, map.get(k)]);

describe('PatchedMap', () => {
  test('reads through its changes to the base, and removes keys', () => {
    const base = new PatchedMap(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    const changed = base.with('b', 20).with('c', 3).with('a', undefined);
    expect(entries(changed, ['a', 'b', 'c', 'd'])).toEqual([
      ['a', undefined],
      ['b', 20],
      ['c', 3],
      ['d', undefined],
    ]);
    expect([changed.has('a'), changed.has('c')]).toEqual([false, true]);
  });

  test('leaves every earlier version as it was', () => {
    const first = new PatchedMap(new Map([['a', 1]]));
    const second = first.with('a', 2);
    const third = second.with('a', undefined);
    expect([first.get('a'), second.get('a'), third.get('a')]).toEqual([1, 2, undefined]);
  });

  test('keeps every value across many changes, whenever it folds them into a new base', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    let map = new PatchedMap(new Map(keys.map((k, i) => [k, i])));
    const older = map;
    for (let i = 0; i < 1000; i++) map = map.with(`k${(i * 7) % 300}`, i);
    for (let i = 0; i < 300; i += 3) map = map.with(`k${i}`, undefined);
    const expected = new Map(keys.map((k, i) => [k, i as number | undefined]));
    for (let i = 0; i < 1000; i++) expected.set(`k${(i * 7) % 300}`, i);
    for (let i = 0; i < 300; i += 3) expected.set(`k${i}`, undefined);
    expect(entries(map, keys)).toEqual([...expected]);
    expect(entries(older, keys)).toEqual(keys.map((k, i) => [k, i]));
  });
});
