import { FlagdProvider } from '@openfeature/flagd-provider';
import { OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { syncSourcesOf } from '../../src/main.ts';
import { type FlagdSyncServer, startFlagdSyncServer } from '../../src/openfeature/flagd-sync-server.ts';
import { eventually } from '../support/eventually.ts';
import { fetchAllClient, openSyncStream, syncSelectorOf } from '../support/flagd-sync-client.ts';
import { describeOutage } from '../support/postgres-behind-proxy.ts';

const OUTAGE_MS = 10_000;
/** A reaches the database through the proxy the test cuts; B past it, so B writes while A cannot. */
const ROUTES = { a: 'proxied', b: 'direct' } as const;

/**
 * flagd sync through a database outage (docs/decisions/1770): node A reaches PostgreSQL through a
 * proxy the test cuts for 10 s, node B directly. A serves flagd sync from its in-memory
 * snapshots, and once the database returns it brings every stream up to date without a write.
 */
describeOutage('flagd sync on PostgreSQL through a 10 s database outage', ROUTES, (nodes) => {
  let sync: FlagdSyncServer;
  let selectors: Record<'production' | 'development', string>;
  let flagId: string;
  const closers: (() => Promise<void>)[] = [];
  const changed: string[][] = [];
  const warned: string[] = [];

  beforeAll(async () => {
    const { a, b } = nodes();
    sync = await startFlagdSyncServer(syncSourcesOf(a.node), {
      port: 0,
      host: '127.0.0.1',
      log: { info() {}, warn: (_object, message) => warned.push(message) },
    });
    closers.push(
      () => OpenFeature.clearProviders(),
      () => sync.close(),
    );

    const flag = await b.call('POST', '/v1/projects/default/flags', {
      body: {
        key: 'checkout',
        type: 'string',
        variants: [
          { key: 'old', value: 'old' },
          { key: 'new', value: 'new' },
        ],
      },
    });
    expect(flag.status).toBe(201);
    flagId = flag.body.id;
    for (const environment of ['production', 'development']) {
      const on = await b.call('PATCH', `/v1/flags/${flagId}?environment=${environment}`, {
        body: { enabled: true, defaultVariant: 'old' },
      });
      expect(on.status).toBe(200);
    }
    const key = await b.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'in-process', role: 'evaluator' },
    });
    const selectorOf = (environment: string) =>
      syncSelectorOf((method, path) => b.call(method, path), key.body.id, environment);
    selectors = { production: await selectorOf('production'), development: await selectorOf('development') };
    // A has heard of the key and the flag from the change feed before the provider connects.
    const known = async () => (await fetchAllClient(sync.port).fetchAll(selectors.production)).code === 0;
    expect(await eventually(known, 5000)).toBe(true);
  }, 30_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
  });

  it('keeps serving flags from memory, and after the database returns brings every stream up to date without a write', async () => {
    const { proxy, a, b } = nodes();
    const provider = new FlagdProvider({
      resolverType: 'in-process',
      host: '127.0.0.1',
      port: sync.port,
      selector: selectors.production,
    });
    await OpenFeature.setProviderAndWait('outage', provider);
    const client = OpenFeature.getClient('outage');
    client.addHandler(ProviderEvents.ConfigurationChanged, (event) =>
      changed.push(event?.flagsChanged ?? []),
    );
    const checkout = () => client.getStringValue('checkout', 'code default', { targetingKey: 'u' });
    expect(await checkout()).toBe('old');

    proxy.cut();
    const outageEnds = Date.now() + OUTAGE_MS;
    // A knows the database is gone (its writes answer 503) before the outage cases run.
    const refused = async () =>
      (await a.call('PATCH', `/v1/flags/${flagId}?environment=production`, { body: { enabled: true } }))
        .status === 503;
    expect(await eventually(refused, 5000)).toBe(true);

    // An environment never exported before: answered from memory.
    const raw = fetchAllClient(sync.port);
    const development = await raw.fetchAll(selectors.development);
    raw.close();
    expect(development.code).toBe(0);
    expect(JSON.parse(development.flags ?? '{}').flags.checkout.defaultVariant).toBe('old');

    // A stream opened during the outage gets the configuration at once.
    const stream = openSyncStream(sync.port, selectors.production);
    closers.unshift(async () => stream.close());
    expect(await eventually(async () => stream.payloads.length >= 1, 2000)).toBe(true);
    expect(stream.payloads[0]?.flags.checkout?.defaultVariant).toBe('old');

    // Node B, which still reaches the database, changes the flag; A cannot know yet.
    const during = await b.call('PATCH', `/v1/flags/${flagId}?environment=production`, {
      body: { defaultVariant: 'new' },
    });
    expect(during.status).toBe(200);
    while (Date.now() < outageEnds) {
      expect(await checkout()).toBe('old');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    // The database returns; nobody writes. The provider and the stream catch up with B's change.
    proxy.restore();
    expect(await eventually(async () => (await checkout()) === 'new', 10_000)).toBe(true);
    expect(changed.flat()).toContain('checkout');
    expect(
      await eventually(async () => stream.payloads.at(-1)?.flags.checkout?.defaultVariant === 'new', 2000),
    ).toBe(true);

    // And a change made on the other node afterwards arrives as usual.
    const after = await b.call('PATCH', `/v1/flags/${flagId}?environment=production`, {
      body: { defaultVariant: 'old' },
    });
    expect(after.status).toBe(200);
    expect(await eventually(async () => (await checkout()) === 'old', 5000)).toBe(true);
    expect(warned.filter((message) => message.includes('could not export'))).toEqual([]);
  }, 60_000);
});
