import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { FakeClock, type Harness, startHarness } from './support.ts';

/** A time the machine's clock never shows during a test run, so only the injected clock can produce it. */
const PINNED = Date.parse('2031-05-06T07:08:09.010Z');
const MINUTE = 60_000;

describeEachDatabase('one injected clock', (database) => {
  let node: Harness;
  const clock = new FakeClock();

  beforeAll(async () => {
    clock.now = PINNED;
    node = await startHarness(database, { clock });
  });
  afterAll(() => node?.close());

  it("a write's timestamps and its audit event's time are the injected clock's", async () => {
    const created = await node.call('POST', '/v1/projects/default/flags', { body: { key: 'pinned' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      createdAt: '2031-05-06T07:08:09.010Z',
      updatedAt: '2031-05-06T07:08:09.010Z',
    });
    const [createdEvent] = (await node.call('GET', '/v1/audit-log?limit=1')).body;
    expect(createdEvent).toMatchObject({ action: 'flag.created', at: '2031-05-06T07:08:09.010Z' });

    clock.advance(5 * MINUTE);
    const updated = await node.call('PATCH', `/v1/flags/${created.body.id}?environment=production`, {
      body: { enabled: true },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.updatedAt).toBe('2031-05-06T07:13:09.010Z');
    const [updatedEvent] = (await node.call('GET', '/v1/audit-log?limit=1')).body;
    expect(updatedEvent).toMatchObject({ action: 'flag.updated', at: '2031-05-06T07:13:09.010Z' });
  });
});
