import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

/**
 * The plane keeps each flag's stored form beside the compiled one (docs/decisions/1770): after
 * any sequence of writes, what it holds is what the database holds, so flagd export and sync can
 * read it instead of the database.
 */
describeEachDatabase('the stored form in the plane', (database) => {
  let node: Harness;
  let projectId: string;

  beforeAll(async () => {
    node = await startHarness(database);
    projectId = (await node.store.findProject('default'))?.id as string;
  });
  afterAll(() => node?.close());

  const inMemory = async () => {
    const { revision, flags, segments } = await node.snapshots.definitions(projectId);
    return { revision, flags, segments };
  };
  const inDatabase = async () => {
    const { revision, flags, segments } = await node.store.readProject(projectId);
    return { revision, flags, segments };
  };

  it('matches the database after creating, patching, archiving and deleting flags and changing segments', async () => {
    await inMemory(); // loaded before the writes, so each one patches it rather than reloading it
    const made: string[] = [];
    for (const key of ['zeta', 'alpha', 'mid']) {
      const created = await node.call('POST', '/v1/projects/default/flags', { body: { key } });
      expect(created.status).toBe(201);
      made.push(created.body.id);
    }
    expect(await inMemory()).toEqual(await inDatabase());

    const [zeta, alpha, mid] = made as [string, string, string];
    expect(
      (await node.call('PATCH', `/v1/flags/${alpha}?environment=production`, { body: { enabled: true } }))
        .status,
    ).toBe(200);
    expect((await node.call('PATCH', `/v1/flags/${mid}`, { body: { archived: true } })).status).toBe(200);
    expect((await node.call('DELETE', `/v1/flags/${zeta}`)).status).toBe(204);
    expect(
      (
        await node.call('POST', '/v1/projects/default/segments', {
          body: { key: 'beta', rules: [] },
        })
      ).status,
    ).toBe(201);

    const memory = await inMemory();
    expect(memory).toEqual(await inDatabase());
    expect(memory.flags.map((f) => f.key)).toEqual(['alpha', 'mid']);
    expect(memory.segments.map((s) => s.key)).toEqual(['beta']);
  });
});
