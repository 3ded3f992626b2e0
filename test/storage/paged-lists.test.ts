import { expect, it } from 'vitest';
import type { AuditEvent } from '../../src/domain/audit-event.ts';
import type { Flag } from '../../src/domain/flag.ts';
import { newId } from '../../src/domain/ids.ts';
import { staleness, staleWindowStart, usageSince } from '../../src/insights/stale.ts';
import type { EvaluationCount } from '../../src/storage/insights-store.ts';
import type { Page, PageRequest, Store } from '../../src/storage/store.ts';
import { buildEnvironment, buildFlag, buildFlagEnvironment, buildProject } from '../support/builders.ts';
import { describeEachDatabase, storeOfEachTest } from '../support/database.ts';

// Lists that page both ways and count what matches (docs/decisions/1800-paged-lists.md), and the
// stale filter answered by the store (docs/decisions/1801-list-filters-in-the-database.md).

const MINUTE = 60_000;

async function givenProject(store: Store, environments: readonly string[] = ['production', 'staging']) {
  const project = buildProject('paged', { id: newId('prj') });
  await store.insertProject(project);
  for (const key of environments)
    await store.insertEnvironment(buildEnvironment(project.id, key, { id: newId('env') }));
  return project;
}

const aFlag = (projectId: string, key: string, fields: Partial<Flag> = {}): Flag =>
  buildFlag(key, {
    id: newId('flg'),
    projectId,
    environments: { production: buildFlagEnvironment({ enabled: false }) },
    ...fields,
  });

/** The pages from the first to the last by `nextCursor`, then back to the first by `previousCursor`. */
async function forthAndBack<T>(list: (page: PageRequest) => Promise<Page<T>>, limit: number) {
  const forth: Page<T>[] = [await list({ limit, counted: true })];
  for (let cursor = forth.at(-1)?.nextCursor; cursor; cursor = forth.at(-1)?.nextCursor) {
    forth.push(await list({ limit, cursor, counted: true }));
  }
  const back: Page<T>[] = [forth.at(-1) as Page<T>];
  for (let before = back.at(-1)?.previousCursor; before; before = back.at(-1)?.previousCursor) {
    back.push(await list({ limit, before, counted: true }));
  }
  return { forth, back };
}

describeEachDatabase('paged lists in the store', (database) => {
  const store = storeOfEachTest(database);

  it('pages flags forward and back, each page with the total and its offset in it', async () => {
    const project = await givenProject(store);
    const keys = Array.from({ length: 11 }, (_, i) => `flag-${String(i).padStart(2, '0')}`);
    await store.transaction(async (tx) => {
      for (const key of keys)
        await tx.insertFlag(aFlag(project.id, key, { tags: key < 'flag-05' ? ['early'] : [] }));
    });

    const { forth, back } = await forthAndBack((page) => store.listFlags(project.id, {}, page), 4);

    const shape = (p: Page<Flag>) => ({
      keys: p.items.map((f) => f.key),
      total: p.total,
      offset: p.offset,
      next: p.nextCursor !== undefined,
      previous: p.previousCursor !== undefined,
    });
    expect(forth.map(shape)).toEqual([
      { keys: keys.slice(0, 4), total: 11, offset: 0, next: true, previous: false },
      { keys: keys.slice(4, 8), total: 11, offset: 4, next: true, previous: true },
      { keys: keys.slice(8), total: 11, offset: 8, next: false, previous: true },
    ]);
    expect(back.map(shape)).toEqual([...forth].reverse().map(shape));

    // The count is of the flags the filter keeps, not of the project's.
    const early = await store.listFlags(project.id, { tag: 'early' }, { limit: 2, counted: true });
    expect([early.total, early.offset, early.items.map((f) => f.key)]).toEqual([
      5,
      0,
      ['flag-00', 'flag-01'],
    ]);
  });

  it('answers a full first page when fewer than a page come before `before`', async () => {
    const project = await givenProject(store);
    for (const key of ['a', 'b', 'c', 'd', 'e']) await store.insertFlag(aFlag(project.id, key));
    const fromC = await store.listFlags(
      project.id,
      {},
      { limit: 3, cursor: Buffer.from('b').toString('base64url'), counted: true },
    );
    expect(fromC.items.map((f) => f.key)).toEqual(['c', 'd', 'e']);

    const before = await store.listFlags(
      project.id,
      {},
      { limit: 3, before: fromC.previousCursor, counted: true },
    );

    expect(before.items.map((f) => f.key)).toEqual(['a', 'b', 'c']);
    expect([before.offset, before.previousCursor, before.nextCursor !== undefined]).toEqual([
      0,
      undefined,
      true,
    ]);
  });

  it('pages the audit log newest first both ways, counted with its filters', async () => {
    const project = await givenProject(store);
    const event = (i: number): AuditEvent => ({
      id: newId('evt'),
      at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      actor: { type: 'api_key', id: 'key_1', name: 'CI' },
      action: i % 3 === 0 ? 'flag.created' : 'flag.updated',
      resource: { type: 'flag', id: `flg_${i}`, key: `flag-${i}` },
      before: null,
      after: null,
      requestId: `req-${i}`,
    });
    const events = Array.from({ length: 9 }, (_, i) => event(i));
    for (const e of events) await store.insertAuditEvent(project.id, e);
    const newest = events.map((e) => e.id).reverse();

    const { forth, back } = await forthAndBack((page) => store.listAuditEvents(project.id, {}, page), 4);

    expect(forth.map((p) => p.items.map((e) => e.id))).toEqual([
      newest.slice(0, 4),
      newest.slice(4, 8),
      newest.slice(8),
    ]);
    expect(forth.map((p) => [p.total, p.offset])).toEqual([
      [9, 0],
      [9, 4],
      [9, 8],
    ]);
    expect(back.map((p) => p.items.map((e) => e.id))).toEqual([
      newest.slice(8),
      newest.slice(4, 8),
      newest.slice(0, 4),
    ]);
    const created = await store.listAuditEvents(
      project.id,
      { action: 'flag.created' },
      { limit: 2, counted: true },
    );
    expect([created.total, created.items.length, created.nextCursor !== undefined]).toEqual([3, 2, true]);
  });

  it("finds by `stale` exactly the flags insights' stale rule calls stale", async () => {
    const project = await givenProject(store);
    const now = Date.UTC(2026, 5, 1, 12, 0, 30);
    const start = staleWindowStart(now);
    const iso = (minute: number) => new Date(minute * MINUTE).toISOString();
    const old = iso(start - 5000);
    // Each flag: when it was made, and the minutes (first and last) each variant was served in production.
    const cases: Record<
      string,
      { created: string; served?: Record<string, [number, number]>; elsewhere?: boolean }
    > = {
      young: { created: iso(start + 1) },
      'made-at-the-window-start': { created: `${iso(start).slice(0, 17)}59.999Z` },
      'made-just-after-it': { created: `${iso(start + 1).slice(0, 19)}Z` },
      'never-evaluated': { created: old },
      'last-before-the-window': { created: old, served: { on: [start - 900, start - 1] } },
      'last-at-the-window-start': { created: old, served: { on: [start - 900, start] } },
      'one-variant-for-long': { created: old, served: { on: [start - 900, start + 800] } },
      'one-variant-since-the-start': { created: old, served: { on: [start, start + 800] } },
      'one-variant-lately': { created: old, served: { on: [start + 1, start + 800] } },
      'two-variants': {
        created: old,
        served: { on: [start - 900, start + 800], off: [start + 10, start + 20] },
      },
      'second-variant-long-ago': {
        created: old,
        served: { on: [start - 900, start + 800], off: [start - 800, start - 700] },
      },
      'only-in-staging': { created: old, served: { on: [start + 1, start + 800] }, elsewhere: true },
      'no-variant': { created: old, served: { '': [start - 900, start + 800] } },
    };
    const counts: EvaluationCount[] = [];
    for (const [key, c] of Object.entries(cases)) {
      await store.insertFlag(aFlag(project.id, key, { createdAt: c.created, updatedAt: c.created }));
      for (const [variant, minutes] of Object.entries(c.served ?? {})) {
        for (const minute of minutes) {
          counts.push({
            projectId: project.id,
            flagKey: key,
            environment: c.elsewhere ? 'staging' : 'production',
            minute,
            variant: variant === '' ? null : variant,
            reason: 'static',
            count: 1,
          });
        }
      }
    }
    await store.insights.addEvaluationCounts(counts);

    const listed = async (stale: boolean) =>
      (
        await store.listFlags(
          project.id,
          { stale: { environment: 'production', windowStartMinute: start, stale } },
          { limit: 100 },
        )
      ).items.map((f) => f.key);
    const usage = await store.insights.variantUsage(project.id, { environment: 'production' });
    const rule = (await store.allFlags(project.id))
      .filter((flag) =>
        staleness(
          flag,
          'production',
          usageSince(
            usage.filter((u) => u.flagKey === flag.key),
            flag.createdAt,
          ),
          now,
        ),
      )
      .map((f) => f.key);

    expect(await listed(true)).toEqual(rule);
    expect(rule).toEqual(
      [
        'made-at-the-window-start',
        'never-evaluated',
        'last-before-the-window',
        'last-at-the-window-start',
        'one-variant-for-long',
        'one-variant-since-the-start',
        'second-variant-long-ago',
        'only-in-staging',
        'no-variant',
      ].sort(),
    );
    expect(await listed(false)).toEqual(
      Object.keys(cases)
        .filter((key) => !rule.includes(key))
        .sort(),
    );
  });
});
