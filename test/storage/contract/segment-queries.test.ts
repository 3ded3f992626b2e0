import { expect, it } from 'vitest';
import type { Store } from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import {
  aSegment,
  everyPage,
  expectLookup,
  givenProject,
  openStoreEachTest,
  SEARCHED_FLAGS,
  sorted,
  UPDATED,
} from './support.ts';

describeEachDatabase('Store contract: segments', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  // Segments

  it('stores a segment exactly as given and finds it by id and by key in its project', async () => {
    const { project } = await givenProject(store, 'checkout');
    const segment = aSegment(project.id, 'beta-users', {
      name: 'Beta users',
      description: 'People who asked for it. Grüße 🚀',
      match: 'any',
      rules: [
        { type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'team', 3, false] },
        { type: 'attribute', attribute: 'user.signup', operator: 'after', value: '2025-01-01T00:00:00Z' },
        { type: 'attribute', attribute: 'email', operator: 'matches', value: '^.*@(acme|example)\\.com$' },
        { type: 'attribute', attribute: 'score', operator: 'lt', value: 0.5, negate: true },
        { type: 'attribute', attribute: 'legacy', operator: 'not_exists' },
        { type: 'segment', segment: 'staff', negate: true },
      ],
      included: ['user-1', 'user "2"'],
      excluded: ['user-3'],
      version: 4,
      updatedAt: UPDATED,
    });

    await store.insertSegment(segment);

    await expectLookup(segment, 'id', (id) => store.findSegmentById(id), 'seg_unknown');
    await expectLookup(segment, 'key', (key) => store.findSegmentByKey(segment.projectId, key), 'unknown');
    expect(await store.findSegmentByKey('prj_other', segment.key)).toBeUndefined();
  });

  it("lists a project's segments in key order, a page at a time, with a cursor exactly while more remain", async () => {
    const { project } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments');
    const keys = ['staff', 'Beta', 'alpha', 'nl', 'a-b'];
    for (const key of keys) await store.insertSegment(aSegment(project.id, key));
    await store.insertSegment(aSegment(other.project.id, 'other'));

    const pages = await everyPage((page) => store.listSegments(project.id, {}, page), 2);

    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items.map((s) => s.key))).toEqual(sorted(keys));
    expect((await store.allSegments(project.id)).map((s) => s.key)).toEqual(sorted(keys));
  });

  it.each([
    ['cHeCkOuT', ['basket', 'new-Checkout']],
    ['Ärger', ['umlauts']],
    ['%', ['a_b']],
    ['k\\s', ['plain']],
  ])(
    'filters segments as it does flags, by text in the key or the name (any case, wildcards literal): %j finds %j',
    async (q, keys) => {
      const { project } = await givenProject(store, 'checkout');
      for (const [key, name] of Object.entries(SEARCHED_FLAGS)) {
        await store.insertSegment(aSegment(project.id, key, { name }));
      }
      const page = await store.listSegments(project.id, { q }, { limit: 10, counted: true });
      expect([page.items.map((s) => s.key), page.total]).toEqual([keys, keys.length]);
    },
  );
});
