import { expect, it } from 'vitest';
import { type Store, UniqueViolation } from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import { givenProject, openStoreEachTest, PROJECT_KEYED, UPDATED } from './support.ts';

describeEachDatabase('Store contract: what environments, flags and segments share', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  // What environments, flags and segments share: a key unique in their project, versioned
  // updates, deletes by id. Held for each kind of PROJECT_KEYED.

  for (const k of PROJECT_KEYED) {
    it(`refuses a second ${k.kind} with the same key in one project with UniqueViolation, changing nothing`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const first = k.make(project.id, 'first');
      await k.insert(store, first);

      await expect(k.insert(store, k.edit(k.make(project.id, 'first')))).rejects.toBeInstanceOf(
        UniqueViolation,
      );
      expect((await k.all(store, project.id)).filter((item) => item.key === 'first')).toStrictEqual([first]);
    });

    it(`allows the same ${k.kind} key in another project`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const other = await givenProject(store, 'payments');
      await k.insert(store, k.make(project.id, 'first'));
      const elsewhere = k.make(other.project.id, 'first');

      await k.insert(store, elsewhere);

      expect(await k.find(store, elsewhere)).toStrictEqual(elsewhere);
      expect((await k.all(store, other.project.id)).filter((item) => item.key === 'first')).toStrictEqual([
        elsewhere,
      ]);
    });

    it(`updates ${k.a} only when the expected version matches`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const item = k.make(project.id, 'first');
      await k.insert(store, item);
      const changed = { ...k.edit(item), version: 2, updatedAt: UPDATED };

      expect(await k.update(store, { ...changed, name: 'Stale' }, 2)).toBe(false);
      expect(await k.find(store, item)).toStrictEqual(item);
      expect(await k.update(store, changed, 1)).toBe(true);
      expect(await k.find(store, item)).toStrictEqual(changed);
    });

    it(`refuses to rename ${k.a} to a key another ${k.kind} of its project has, changing nothing`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const first = k.make(project.id, 'first');
      const second = k.make(project.id, 'second');
      await k.insert(store, first);
      await k.insert(store, second);

      await expect(
        k.update(store, { ...k.edit(second), key: 'first', version: 2 }, 1),
      ).rejects.toBeInstanceOf(UniqueViolation);
      expect(await k.find(store, second)).toStrictEqual(second);
      expect(await k.find(store, first)).toStrictEqual(first);
    });

    it(`deletes ${k.a}, leaving the others alone`, async () => {
      const { project } = await givenProject(store, 'checkout');
      const before = await k.all(store, project.id);
      const doomed = k.make(project.id, 'doomed');
      const kept = k.make(project.id, 'kept');
      await k.insert(store, doomed);
      await k.insert(store, kept);

      await k.remove(store, doomed);

      expect(await k.find(store, doomed)).toBeUndefined();
      expect(await k.all(store, project.id)).toStrictEqual([...before, kept]);
    });
  }
});
