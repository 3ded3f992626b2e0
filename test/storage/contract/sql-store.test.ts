import { expect, it } from 'vitest';
import { type Store, UniqueViolation } from '../../../src/storage/store.ts';
import { describeEachDatabase } from '../../support/database.ts';
import {
  aFlag,
  anApiKey,
  anAuditEvent,
  anEnvironment,
  aProject,
  aSegment,
  disabled,
  givenProject,
  openStoreEachTest,
  sleep,
  UPDATED,
} from './support.ts';

describeEachDatabase('Store contract: the store, its races and transactions', (database) => {
  let store!: Store;
  openStoreEachTest(database, (opened) => {
    store = opened;
  });

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  // Races: what a write's transaction may rely on

  it('of 20 concurrent deletes of one flag, exactly one learns it deleted the row', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'doomed', ['development', 'production']);
    await store.insertFlag(flag);

    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.transaction((tx) => tx.deleteFlag(flag.id))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.findFlagById(flag.id)).toBeUndefined();
  });

  it('a flag read for update in a transaction makes concurrent writers of it queue, so none sees a stale version', async () => {
    const { project } = await givenProject(store, 'checkout');
    const flag = aFlag(project.id, 'counter', ['production']);
    await store.insertFlag(flag);

    const bump = () =>
      store.transaction(async (tx) => {
        const stored = await tx.findFlagById(flag.id, { forUpdate: true });
        if (stored === undefined) throw new Error('flag vanished');
        return tx.updateFlag({ ...stored, version: stored.version + 1 }, stored.version);
      });
    const results = await Promise.all(Array.from({ length: 20 }, bump));

    expect(results.every(Boolean)).toBe(true);
    expect((await store.findFlagById(flag.id))?.version).toBe(21);
  });

  it('names which segment keys exist in the project, and nothing of another project', async () => {
    const { project } = await givenProject(store, 'checkout');
    const { project: other } = await givenProject(store, 'billing');
    await store.insertSegment(aSegment(project.id, 'beta'));
    await store.insertSegment(aSegment(project.id, 'staff'));
    await store.insertSegment(aSegment(other.id, 'vip'));

    const found = await store.existingSegmentKeys(project.id, ['beta', 'vip', 'nobody', 'beta']);
    expect([...found]).toEqual(['beta']);
    expect(await store.existingSegmentKeys(project.id, [])).toEqual(new Set());
  });

  it('a segment named by an open write cannot be deleted from under it: the delete waits and then sees the write', async () => {
    const { project } = await givenProject(store, 'checkout');
    const segment = aSegment(project.id, 'beta');
    await store.insertSegment(segment);
    const events: string[] = [];

    const referring = store.transaction(async (tx) => {
      await tx.existingSegmentKeys(project.id, ['beta']);
      events.push('referred');
      await sleep(100);
      events.push('write committed');
    });
    await sleep(20);
    const deleting = store.transaction(async (tx) => {
      await tx.findSegmentById(segment.id, { forUpdate: true });
      events.push('delete locked');
      return tx.deleteSegment(segment.id);
    });
    await Promise.all([referring, deleting]);

    expect(events).toEqual(['referred', 'write committed', 'delete locked']);
  });

  // Transactions

  it('commits every write of a transaction whose work succeeds, and returns what the work returns', async () => {
    const project = aProject('checkout');
    const production = anEnvironment(project.id, 'production');
    const flag = aFlag(project.id, 'new-button', ['production']);

    const result = await store.transaction(async (tx) => {
      await tx.insertProject(project);
      await tx.insertEnvironment(production);
      await tx.insertFlag(flag);
      return tx.bumpRevision(project.id);
    });

    expect(result).toBe(2);
    expect(await store.findProject(project.id)).toStrictEqual(project);
    expect(await store.findFlagById(flag.id)).toStrictEqual(flag);
  });

  it('rolls back every write of a transaction whose work throws, and rethrows the error', async () => {
    const { project } = await givenProject(store, 'checkout');
    const existingFlag = aFlag(project.id, 'existing', ['development', 'production']);
    const existingKey = anApiKey(project.id);
    await store.insertFlag(existingFlag);
    await store.insertApiKey(existingKey);
    /** Everything the work below writes to, as the store reads it. */
    const everything = async () => ({
      projects: await store.listProjects({ limit: 100 }),
      revisions: await store.listRevisions(),
      environments: await store.listEnvironments(project.id),
      flags: await store.allFlags(project.id),
      segments: await store.allSegments(project.id),
      keys: await store.listApiKeys(project.id, { limit: 100 }),
      audit: await store.listAuditEvents(project.id, {}, { limit: 100 }),
    });
    const before = await everything();
    const failure = new Error('the work failed');

    const attempt = store.transaction(async (tx) => {
      const newProject = aProject('payments');
      await tx.insertProject(newProject);
      await tx.updateProject({ ...project, name: 'Renamed', version: 2 }, 1);
      await tx.bumpRevision(project.id);
      const staging = anEnvironment(project.id, 'staging');
      await tx.insertEnvironment(staging);
      await tx.insertFlag(aFlag(project.id, 'new-flag', ['production', 'staging']));
      await tx.updateFlag({ ...existingFlag, name: 'Changed', version: 2, environments: {} }, 1);
      await tx.insertFlagEnvironments(staging.id, new Map([[existingFlag.id, disabled]]));
      await tx.insertSegment(aSegment(project.id, 'beta'));
      await tx.insertApiKey(anApiKey(project.id));
      await tx.revokeApiKey(existingKey.id, UPDATED);
      await tx.touchApiKeys(new Map([[existingKey.id, UPDATED]]));
      await tx.insertAuditEvent(project.id, anAuditEvent());
      await tx.deleteFlag(existingFlag.id);
      throw failure;
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await everything()).toStrictEqual(before);
  });

  it('rolls back a transaction whose work fails on a UniqueViolation, keeping nothing it wrote before', async () => {
    const { project } = await givenProject(store, 'checkout');
    await store.insertFlag(aFlag(project.id, 'taken', []));

    const attempt = store.transaction(async (tx) => {
      await tx.insertSegment(aSegment(project.id, 'beta'));
      await tx.insertFlag(aFlag(project.id, 'taken', []));
    });

    await expect(attempt).rejects.toBeInstanceOf(UniqueViolation);
    expect(await store.allSegments(project.id)).toEqual([]);
  });

  it('a transaction started inside a transaction joins it, so the outer failure undoes the inner writes', async () => {
    const failure = new Error('outer work failed');

    const attempt = store.transaction(async (outer) => {
      await outer.insertProject(aProject('outer'));
      const inner = await outer.transaction(async (tx) => {
        await tx.insertProject(aProject('inner'));
        return 'inner done';
      });
      expect(inner).toBe('inner done');
      expect((await outer.listProjects({ limit: 10 })).items.map((p) => p.key)).toEqual(['inner', 'outer']);
      throw failure;
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await store.listProjects({ limit: 10 })).toStrictEqual({ items: [] });
  });

  it('an inner transaction that throws fails the whole transaction', async () => {
    const failure = new Error('inner work failed');

    const attempt = store.transaction(async (outer) => {
      await outer.insertProject(aProject('outer'));
      await outer.transaction(async (tx) => {
        await tx.insertProject(aProject('inner'));
        throw failure;
      });
    });

    await expect(attempt).rejects.toBe(failure);
    expect(await store.listProjects({ limit: 10 })).toStrictEqual({ items: [] });
  });

  it('two transactions inserting the same project key at once end with one project and one UniqueViolation', async () => {
    const events: string[] = [];
    const insertAs = (name: string) =>
      store.transaction(async (tx) => {
        events.push(`${name} started`);
        await tx.insertProject(aProject('checkout', { name }));
        // Hold the transaction open so the other one runs while this one is uncommitted.
        await sleep(100);
        events.push(`${name} finished`);
        return name;
      });

    const results = await Promise.allSettled([insertAs('first'), insertAs('second')]);

    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolation);
    const { items } = await store.listProjects({ limit: 10 });
    expect(items.map((p) => [p.key, p.name])).toEqual([
      ['checkout', (fulfilled[0] as PromiseFulfilledResult<string>).value],
    ]);
    if (database.name === 'sqlite') {
      // SQLite has one writer: the second transaction starts only after the first ends.
      expect(events[1]).toMatch(/finished$/);
    } else {
      // PostgreSQL runs both: the second starts before the first commits, then waits on the key.
      expect(events.slice(0, 2).every((e) => e.endsWith('started'))).toBe(true);
    }
  });
});
