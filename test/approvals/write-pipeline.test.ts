import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor } from '../../src/services/core/actor.ts';
import { FlagWrites } from '../../src/services/flags/flag-writes.ts';
import { FlagdWrites } from '../../src/services/flags/flagd-writes.ts';
import { SegmentWrites } from '../../src/services/flags/segment-writes.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { Store } from '../../src/storage/store.ts';
import { ADMIN_KEY, FakeClock, type Node, startNode } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';

/** Every call of a store method, by name, made on the store or on a transaction it began. */
function countingStore(store: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, name, receiver) {
        const value = Reflect.get(object, name, receiver);
        if (typeof value !== 'function' || typeof name !== 'string') return value;
        return (...args: unknown[]) => {
          calls.set(name, (calls.get(name) ?? 0) + 1);
          if (name === 'transaction') {
            const work = args[0] as (tx: object) => Promise<unknown>;
            return value.call(object, (tx: object) => work(wrap(tx)));
          }
          return value.apply(object, args);
        };
      },
    });
  return { store: wrap(store), calls };
}

/** The reads of flags a write could make: by id, by key, several at once, the whole project's. */
const FLAG_READS = ['findFlagById', 'findFlagByKey', 'flagsByKeys', 'allFlags'];

/**
 * The one write pipeline (docs/decisions/1850): a PATCH into an environment that requires
 * approvals reads its flag once, validates its references once, and asks the gate once —
 * whether the gate applies it (an admin's) or keeps it as a change request (an editor's).
 */
describeEachDatabase('the one write pipeline: a guarded PATCH, counted', (database) => {
  let node: Node;
  let close: () => Promise<void>;
  let calls: Map<string, number>;
  let projectId: string;
  let flagId: string;

  /** An actor as the PATCH route hands it on: its access check done, the flag's project granted. */
  const asRouteGrants = (role: 'admin' | 'editor'): Actor => ({
    principal: { type: 'api_key', id: `key_${role}`, name: role, role, projectId: null, environments: null },
    requestId: `req_${role}`,
    grant: { projectId },
  });
  const counted = async (work: () => Promise<unknown>) => {
    calls.clear();
    await work();
    const reads = FLAG_READS.reduce((sum, name) => sum + (calls.get(name) ?? 0), 0);
    return {
      reads,
      gate: calls.get('requiredApprovals') ?? 0,
      references: calls.get('existingSegmentKeys') ?? 0,
      transactions: calls.get('transaction') ?? 0,
    };
  };
  /** What switching the flag on in production as a route's key of `role` answers, and what it read and asked. */
  const switchedOnInProduction = async (role: 'editor' | 'admin') => {
    let outcome: unknown;
    const count = await counted(async () => {
      outcome = await node.services.flags.patch(
        asRouteGrants(role),
        flagId,
        { enabled: true },
        { environment: 'production' },
      );
    });
    return { outcome, count };
  };

  beforeAll(async () => {
    const opened = await database.open();
    await bootstrap(opened.store, ADMIN_KEY);
    const counting = countingStore(opened.store);
    calls = counting.calls;
    node = await startNode(counting.store, { clock: new FakeClock() });
    close = async () => {
      await node.app.close();
      await opened.close();
    };
    projectId = (await node.call('GET', '/v1/projects/default')).body.id;
    flagId = (await node.call('POST', '/v1/projects/default/flags', { body: { key: 'checkout' } })).body.id;
    const guarded = await node.call('PATCH', '/v1/projects/default/environments/production', {
      body: { requiredApprovals: 1 },
    });
    expect(guarded.status).toBe(200);
  });
  afterAll(() => close?.());

  it("reads the flag once and asks the gate once for an editor's PATCH, which becomes a change request", async () => {
    const { outcome, count } = await switchedOnInProduction('editor');
    expect(outcome).toMatchObject({ request: { status: 'open', environment: 'production' } });
    expect(count).toEqual({ reads: 1, gate: 1, references: 1, transactions: 1 });
  });

  it("reads the flag once and validates it once for an admin's PATCH, which the gate applies", async () => {
    const { outcome, count } = await switchedOnInProduction('admin');
    expect(outcome).toMatchObject({ applied: { environments: { production: { enabled: true } } } });
    // The admin passes the gate without it reading the environments' policies.
    expect(count).toEqual({ reads: 1, gate: 0, references: 1, transactions: 1 });
  });

  it('gives routes no way to write past the gate or the actor’s rights: no *OnBehalf method, no pipeline', () => {
    const members = Object.entries(node.services);
    const pipelines = members.filter(
      ([, member]) =>
        member instanceof FlagWrites || member instanceof SegmentWrites || member instanceof FlagdWrites,
    );
    expect(pipelines.map(([name]) => name)).toEqual([]);
    const skipping = members.flatMap(([name, member]) => {
      const prototype = member === null || typeof member !== 'object' ? null : Object.getPrototypeOf(member);
      const methods = prototype === null ? [] : Object.getOwnPropertyNames(prototype);
      return methods.filter((method) => /OnBehalf$/.test(method)).map((method) => `${name}.${method}`);
    });
    expect(skipping).toEqual([]);
  });
});
