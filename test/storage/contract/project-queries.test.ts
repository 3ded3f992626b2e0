import { expect, it } from 'vitest';
import { type Store, UniqueViolation } from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import {
  aFlag,
  anApiKey,
  anEnvironment,
  aProject,
  aSegment,
  disabled,
  everyPage,
  givenProject,
  keyByHash,
  openStoreEachTest,
  sorted,
  UPDATED,
} from './support.ts';

describeEachDatabase('Store contract: projects, revisions and environments', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  // Projects

  it('finds an inserted project by its id and by its key', async () => {
    const project = aProject('checkout', { name: 'Checkout', description: 'Grüße 🚀' });
    await store.insertProject(project);

    expect(await store.findProject(project.id)).toStrictEqual(project);
    expect(await store.findProject('checkout')).toStrictEqual(project);
  });

  it('finds no project for an unknown id or key', async () => {
    await store.insertProject(aProject('checkout'));

    expect(await store.findProject('prj_unknown')).toBeUndefined();
    expect(await store.findProject('Checkout')).toBeUndefined();
  });

  it('lists projects in key order, a page at a time, with a cursor exactly while more remain', async () => {
    const keys = ['delta', 'Alpha', 'charlie', 'bravo-2', 'bravo', 'echo_1', '9lives'];
    for (const key of keys) await store.insertProject(aProject(key));

    const pages = await everyPage((page) => store.listProjects(page), 3);

    expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => p.nextCursor !== undefined)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.items.map((project) => project.key))).toEqual(sorted(keys));
  });

  it('gives no cursor when the last page is exactly full', async () => {
    for (const key of ['a', 'b', 'c', 'd']) await store.insertProject(aProject(key));

    const pages = await everyPage((page) => store.listProjects(page), 2);

    expect(pages.map((p) => p.items.length)).toEqual([2, 2]);
    expect(pages[1]?.nextCursor).toBeUndefined();
  });

  it('lists no projects and no cursor when there are none', async () => {
    expect(await store.listProjects({ limit: 10 })).toStrictEqual({ items: [] });
  });

  it('updates a project when the expected version matches', async () => {
    const project = aProject('checkout');
    await store.insertProject(project);
    const changed = { ...project, key: 'payments', name: 'Payments', version: 2, updatedAt: UPDATED };

    expect(await store.updateProject(changed, 1)).toBe(true);
    expect(await store.findProject(project.id)).toStrictEqual(changed);
    expect(await store.findProject('checkout')).toBeUndefined();
  });

  it('changes nothing and returns false when a project update expects a stale version', async () => {
    const project = aProject('checkout');
    await store.insertProject(project);
    await store.updateProject({ ...project, name: 'Second', version: 2 }, 1);

    expect(await store.updateProject({ ...project, name: 'Stale', version: 2 }, 1)).toBe(false);
    expect(await store.findProject(project.id)).toStrictEqual({ ...project, name: 'Second', version: 2 });
  });

  it('returns false when updating a project that does not exist', async () => {
    expect(await store.updateProject(aProject('ghost'), 1)).toBe(false);
    expect(await store.findProject('ghost')).toBeUndefined();
  });

  it('refuses a second project with the same key with UniqueViolation', async () => {
    await store.insertProject(aProject('checkout'));

    await expect(store.insertProject(aProject('checkout'))).rejects.toBeInstanceOf(UniqueViolation);
    expect((await store.listProjects({ limit: 10 })).items).toHaveLength(1);
  });

  it('treats project keys that differ only in case as different', async () => {
    await store.insertProject(aProject('checkout'));
    await store.insertProject(aProject('Checkout'));

    expect((await store.listProjects({ limit: 10 })).items.map((p) => p.key)).toEqual([
      'Checkout',
      'checkout',
    ]);
  });

  it('refuses to rename a project to a key another project has, changing nothing', async () => {
    const first = aProject('checkout');
    const second = aProject('payments');
    await store.insertProject(first);
    await store.insertProject(second);

    await expect(store.updateProject({ ...second, key: 'checkout', version: 2 }, 1)).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    expect(await store.findProject(second.id)).toStrictEqual(second);
  });

  it("deleting a project deletes its environments, flags, segments, API keys and revision, and nothing of another project's", async () => {
    const { project, environments } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'new-button', ['development', 'production']);
    const segment = aSegment(project.id, 'beta');
    const key = anApiKey(project.id);
    await store.insertFlag(flag);
    await store.insertSegment(segment);
    await store.insertApiKey(key);

    const other = await givenProject(store, 'payments');
    const otherFlag = aFlag(other.project.id, 'new-button', ['development', 'production']);
    const otherSegment = aSegment(other.project.id, 'beta');
    const otherKey = anApiKey(other.project.id);
    const orgKey = anApiKey(null, { role: 'admin' });
    await store.insertFlag(otherFlag);
    await store.insertSegment(otherSegment);
    await store.insertApiKey(otherKey);
    await store.insertApiKey(orgKey);

    await store.deleteProject(project.id);

    expect(await store.findProject(project.id)).toBeUndefined();
    expect(await store.listEnvironments(project.id)).toEqual([]);
    expect(await store.findEnvironment(project.id, environments[0]!.key)).toBeUndefined();
    expect(await store.findFlagById(flag.id)).toBeUndefined();
    expect(await store.allFlags(project.id)).toEqual([]);
    expect(await store.findSegmentById(segment.id)).toBeUndefined();
    expect(await store.findApiKeyById(key.id)).toBeUndefined();
    expect(await keyByHash(store, key.secretHash)).toBeUndefined();
    expect((await store.listRevisions()).has(project.id)).toBe(false);

    expect(await store.findProject(other.project.id)).toStrictEqual(other.project);
    expect(await store.listEnvironments(other.project.id)).toStrictEqual(other.environments);
    expect(await store.findFlagById(otherFlag.id)).toStrictEqual(otherFlag);
    expect(await store.findSegmentById(otherSegment.id)).toStrictEqual(otherSegment);
    expect(await keyByHash(store, otherKey.secretHash)).toStrictEqual(otherKey);
    expect(await keyByHash(store, orgKey.secretHash)).toStrictEqual(orgKey);
    expect((await store.listRevisions()).get(other.project.id)).toBe(1);
  });

  // Revisions

  it('starts a new project at revision 1, and each bump returns the next revision', async () => {
    const project = aProject('checkout');
    await store.insertProject(project);

    expect((await store.listRevisions()).get(project.id)).toBe(1);
    expect(await store.bumpRevision(project.id)).toBe(2);
    expect(await store.bumpRevision(project.id)).toBe(3);
    expect((await store.listRevisions()).get(project.id)).toBe(3);
  });

  it('lists the revision of every project, each moving on its own', async () => {
    const a = aProject('a');
    const b = aProject('b');
    await store.insertProject(a);
    await store.insertProject(b);
    await store.bumpRevision(b.id);
    await store.bumpRevision(b.id);

    expect(await store.listRevisions()).toEqual(
      new Map([
        [a.id, 1],
        [b.id, 3],
      ]),
    );
  });

  // Environments

  it("lists a project's environments in creation order, not key order", async () => {
    const { project, environments } = await givenProject(store, 'checkout', [
      'production',
      'development',
      'Staging',
    ]);
    await givenProject(store, 'payments', ['qa']);

    expect(await store.listEnvironments(project.id)).toStrictEqual(environments);
  });

  it('finds an environment by its project and key, and nowhere else', async () => {
    const { project, environments } = await givenProject(store, 'checkout');
    const other = await givenProject(store, 'payments', ['qa']);

    expect(await store.findEnvironment(project.id, 'production')).toStrictEqual(environments[1]);
    expect(await store.findEnvironment(project.id, 'qa')).toBeUndefined();
    expect(await store.findEnvironment(other.project.id, 'production')).toBeUndefined();
    expect(await store.findEnvironment(project.id, 'Production')).toBeUndefined();
  });

  it("deleting an environment removes every flag's configuration in it and keeps the others", async () => {
    const { project, environments } = await givenProject(store, 'checkout', [
      'development',
      'production',
      'staging',
    ]);
    const flags = ['a', 'b', 'c'].map((key) =>
      aFlag(project.id, key, ['development', 'production', 'staging']),
    );
    for (const flag of flags) await store.insertFlag(flag);

    await store.deleteEnvironment(environments[2]!.id);

    expect(await store.listEnvironments(project.id)).toStrictEqual(environments.slice(0, 2));
    for (const flag of await store.allFlags(project.id)) {
      expect(Object.keys(flag.environments).sort()).toEqual(['development', 'production']);
    }
  });

  it('a new environment with the key of a deleted one starts without the old configuration', async () => {
    const { project, environments } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'a', ['development', 'production'], {
      environments: { development: disabled, production: { ...disabled, enabled: true } },
    });
    await store.insertFlag(flag);
    await store.deleteEnvironment(environments[1]!.id);
    const production = anEnvironment(project.id, 'production');
    await store.insertEnvironment(production);

    expect((await store.findFlagById(flag.id))?.environments).toStrictEqual({ development: disabled });

    await store.insertFlagEnvironments(production.id, new Map([[flag.id, disabled]]));
    expect((await store.findFlagById(flag.id))?.environments).toStrictEqual({
      development: disabled,
      production: disabled,
    });
  });
});
