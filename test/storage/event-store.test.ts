import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { Exposure } from '../../src/domain/exposure.ts';
import { dayOf, MS_PER_DAY } from '../../src/domain/tracking-event.ts';
import { restoreBackup } from '../../src/storage/backup/restore-backup.ts';
import { writeBackup } from '../../src/storage/backup/write-backup.ts';
import type { StoredEvent } from '../../src/storage/event-store.ts';
import { describeEachDatabase, describeEachFreshDatabase } from '../support/database.ts';

// The event and exposure roles (storage/event-store.ts, exposure-store.ts): what POST /v1/events,
// exposure counting and, later, experiment results rely on, on both databases.

const T0 = Date.parse('2026-03-10T12:00:00.000Z');

const anEvent = (id: string, more: Partial<StoredEvent> = {}): StoredEvent => ({
  projectId: 'prj_a',
  environment: 'production',
  id,
  name: 'checkout',
  unit: `user-${id}`,
  context: { plan: 'pro' },
  value: null,
  details: null,
  timestamp: T0,
  ...more,
});

const anExposure = (
  unit: string,
  variant: string,
  firstAt: number,
  more: Partial<Exposure> = {},
): Exposure => ({
  projectId: 'prj_a',
  environment: 'production',
  experiment: 'exp-checkout',
  unit,
  variant,
  firstAt,
  multiple: false,
  ...more,
});

describeEachFreshDatabase('Tracking events and exposures', (opened) => {
  const all = () =>
    opened().store.events.listEvents({ projectId: 'prj_a', environment: 'production', limit: 10_000 });

  it('stores a batch whole, every field as sent', async () => {
    const { events } = opened().store;
    const sent = [
      anEvent('e1', { value: 12.5, details: { currency: 'EUR', items: [1, 2] } }),
      anEvent('e2', { name: 'sign up', timestamp: T0 + 1, context: {} }),
    ];
    expect(await events.insertEvents(sent)).toBe(2);
    expect(await all()).toEqual(sent);
  });

  it('keeps an event once however often its batch is retried, and repeated within one batch', async () => {
    const { events } = opened().store;
    const batch = [anEvent('e1'), anEvent('e2'), anEvent('e1')];
    expect(await events.insertEvents(batch)).toBe(2);
    expect(await events.insertEvents(batch)).toBe(0);
    expect(await events.insertEvents([anEvent('e2'), anEvent('e3')])).toBe(1);
    expect((await all()).map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
  });

  it('keeps the same id apart in other environments and projects', async () => {
    const { events } = opened().store;
    await events.insertEvents([
      anEvent('e1'),
      anEvent('e1', { environment: 'staging' }),
      anEvent('e1', { projectId: 'prj_b' }),
    ]);
    expect(await all()).toHaveLength(1);
    const staging = await events.listEvents({ projectId: 'prj_a', environment: 'staging', limit: 10 });
    expect(staging).toHaveLength(1);
  });

  it('stores batches larger than one statement holds', async () => {
    const { events } = opened().store;
    const many = Array.from({ length: 2500 }, (_, i) => anEvent(`e${i}`, { timestamp: T0 + i }));
    expect(await events.insertEvents(many)).toBe(2500);
    expect(await all()).toHaveLength(2500);
  });

  it('reads one name in a range of times, oldest first, at most as many as asked', async () => {
    const { events } = opened().store;
    await events.insertEvents([
      anEvent('a', { timestamp: T0 + 3000 }),
      anEvent('b', { timestamp: T0 + 1000 }),
      anEvent('c', { timestamp: T0 + 2000, name: 'other' }),
      anEvent('d', { timestamp: T0 + 5000 }),
    ]);
    const read = await events.listEvents({
      projectId: 'prj_a',
      environment: 'production',
      name: 'checkout',
      fromMs: T0 + 1000,
      toMs: T0 + 5000,
      limit: 10,
    });
    expect(read.map((e) => e.id)).toEqual(['b', 'a']);
    const first = await events.listEvents({ projectId: 'prj_a', environment: 'production', limit: 1 });
    expect(first.map((e) => e.id)).toEqual(['b']);
  });

  it('drops the days before retention and keeps the rest', async () => {
    const { events } = opened().store;
    const day = dayOf(T0);
    await events.prepareDays(day - 3, day + 2);
    await events.insertEvents([
      anEvent('old', { timestamp: T0 - 3 * MS_PER_DAY }),
      anEvent('older', { timestamp: T0 - 2 * MS_PER_DAY }),
      anEvent('kept', { timestamp: T0 - MS_PER_DAY }),
      anEvent('today', { timestamp: T0 }),
    ]);
    expect(await events.pruneEvents(day - 1)).toBeGreaterThan(0);
    expect((await all()).map((e) => e.id)).toEqual(['kept', 'today']);
    // A day dropped and written again (an event from that day arriving later) works.
    await events.insertEvents([anEvent('late', { timestamp: T0 - 2 * MS_PER_DAY })]);
    expect((await all()).map((e) => e.id)).toEqual(['late', 'kept', 'today']);
  });

  it('on PostgreSQL, keeps each day in a partition of its own and drops it whole', async () => {
    const { db, store } = opened();
    if (db.getExecutor().adapter.constructor.name !== 'PostgresAdapter') return;
    const day = dayOf(T0);
    await store.events.prepareDays(day, day + 2);
    await store.events.insertEvents([anEvent('x', { timestamp: T0 - 10 * MS_PER_DAY })]);
    const partitions = async () =>
      (
        await sql<{
          name: string;
        }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
          join pg_class p on p.oid = i.inhparent where p.relname = 'events'
          and p.relnamespace = current_schema()::regnamespace order by 1`.execute(db)
      ).rows.map((r) => r.name);
    expect(await partitions()).toEqual([day - 10, day, day + 1, day + 2].map((d) => `events_d${d}`));
    expect(await store.events.pruneEvents(day)).toBe(1);
    expect(await partitions()).toEqual([day, day + 1, day + 2].map((d) => `events_d${d}`));
  });

  it('keeps a unit in the variant it was first exposed to, and counts it multiple once it saw another', async () => {
    const { exposures } = opened().store;
    await exposures.recordExposures([anExposure('u1', 'on', T0 + 10), anExposure('u2', 'off', T0)]);
    // Another node's flush, later, holding an earlier exposure of u1 to the other variant.
    await exposures.recordExposures([anExposure('u1', 'off', T0 + 5), anExposure('u2', 'off', T0 + 99)]);
    expect(await exposures.listExposures('prj_a', 'exp-checkout')).toEqual([
      anExposure('u1', 'off', T0 + 5, { multiple: true }),
      anExposure('u2', 'off', T0),
    ]);
    // Seen in its first variant again: still multiple.
    await exposures.recordExposures([anExposure('u1', 'off', T0 + 500)]);
    const [u1] = await exposures.listExposures('prj_a', 'exp-checkout');
    expect(u1).toEqual(anExposure('u1', 'off', T0 + 5, { multiple: true }));
  });

  it('merges exposures of one unit repeated within one write', async () => {
    const { exposures } = opened().store;
    await exposures.recordExposures([anExposure('u1', 'on', T0 + 1), anExposure('u1', 'off', T0)]);
    expect(await exposures.listExposures('prj_a', 'exp-checkout')).toEqual([
      anExposure('u1', 'off', T0, { multiple: true }),
    ]);
    expect(await exposures.listExposures('prj_a', 'another')).toEqual([]);
  });
});

describeEachDatabase('Tracking events in a backup', (database) => {
  it('are copied once, whatever their days, and restored into their days', async () => {
    const source = await database.open();
    const target = await database.open();
    const folder = mkdtempSync(join(tmpdir(), 'flagstaff-events-backup-'));
    try {
      const sent = [0, 1, 5].map((daysAgo) =>
        anEvent(`d${daysAgo}`, { timestamp: T0 - daysAgo * MS_PER_DAY }),
      );
      await source.store.events.insertEvents(sent);
      const file = join(folder, 'events.backup');
      const header = await writeBackup(source.db, file);
      expect(header.tables.find((t) => t.name === 'events')?.rows).toBe(3);
      expect(header.tables.some((t) => t.name.startsWith('events_d'))).toBe(false);
      await restoreBackup(target.db, file);
      const restored = await target.store.events.listEvents({
        projectId: 'prj_a',
        environment: 'production',
        limit: 10,
      });
      expect(restored).toEqual([...sent].reverse());
      // The restored days take more events, and retention drops them as before.
      await target.store.events.insertEvents([anEvent('later', { timestamp: T0 - 5 * MS_PER_DAY + 1 })]);
      await target.store.events.pruneEvents(dayOf(T0) - 1);
      const kept = await target.store.events.listEvents({
        projectId: 'prj_a',
        environment: 'production',
        limit: 10,
      });
      expect(kept.map((e) => e.id)).toEqual(['d1', 'd0']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await source.close();
      await target.close();
    }
    // Generous: the backup reads the catalogue, slow on a test server holding many schemas.
  }, 240_000);
});
