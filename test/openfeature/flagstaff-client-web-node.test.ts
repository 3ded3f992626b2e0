import { type Client, OpenFeature } from '@openfeature/web-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FlagstaffWebProvider, type FlagstaffWebProviderOptions } from '../../clients/openfeature/src/web.ts';
import { describeEachDatabase } from '../support/database.ts';
import type { TestServer } from '../support/server.ts';
import { startServer } from './support/server.ts';
import { storedEvents } from './support/tracking.ts';
import { createKey, seedVariedProject } from './support/varied-project.ts';

const silent = { warn() {}, error() {}, info() {}, debug() {} };

/** @flagstaff/openfeature's web provider with the official web SDK, run in Node, against a real Flagstaff. */
describeEachDatabase(
  '@openfeature/web-sdk with FlagstaffWebProvider in Node: track() and exposures',
  (database) => {
    let server: TestServer;
    let key: string;
    let domain = 0;

    beforeAll(async () => {
      server = await startServer(database);
      await seedVariedProject(server);
      key = await createKey(server, { role: 'evaluator', environments: ['production'] });
    });
    afterAll(async () => {
      await OpenFeature.close();
      await server.close();
    });

    async function connect(
      targetingKey: string,
      options: Partial<FlagstaffWebProviderOptions> = {},
    ): Promise<{ provider: FlagstaffWebProvider; client: Client }> {
      const name = `${database.name}-web-${++domain}`;
      const provider = new FlagstaffWebProvider(
        {
          baseUrl: server.url,
          headers: [['Authorization', `Bearer ${key}`]],
          cacheMode: 'disabled',
          ...options,
        },
        silent,
      );
      await OpenFeature.setContext(name, { targetingKey, country: 'NL' });
      await OpenFeature.setProviderAndWait(name, provider);
      return { provider, client: OpenFeature.getClient(name) };
    }

    const eventsOf = async (unit: string) =>
      (await storedEvents(server)).filter((event) => event.unit === unit);

    it("client.track() reaches POST /v1/events with the page's context", async () => {
      const { provider, client } = await connect('web-1');
      client.track('add-to-cart', { value: 3, sku: 'A-1' });
      await provider.tracking.flush();
      expect(await eventsOf('web-1')).toMatchObject([
        { name: 'add-to-cart', context: { country: 'NL' }, value: 3, details: { sku: 'A-1' } },
      ]);
    });

    it('reading flags from the bulk evaluation sends $exposure once per flag and variant, without delaying the read', async () => {
      const { provider, client } = await connect('web-2');
      const started = performance.now();
      for (let i = 0; i < 100; i++) client.getBooleanValue('new-checkout', false);
      client.getStringValue('banner-text', 'code default');
      // 101 synchronous reads, and not one waited for the network.
      expect(performance.now() - started).toBeLessThan(200);
      expect(provider.tracking.stats().buffered).toBe(2);
      await provider.tracking.flush();
      const exposures = (await eventsOf('web-2'))
        .map((e) => e.details)
        .sort((a, b) => String(a?.flag).localeCompare(String(b?.flag)));
      expect(exposures).toEqual([
        { flag: 'banner-text', variant: 'short' },
        { flag: 'new-checkout', variant: 'on' },
      ]);
    });

    it('a new targeting key is a new unit: its reads are exposed too', async () => {
      const { provider, client } = await connect('web-3');
      client.getBooleanValue('new-checkout', false);
      await OpenFeature.setContext(client.metadata.domain ?? '', { targetingKey: 'web-4', country: 'NL' });
      client.getBooleanValue('new-checkout', false);
      await provider.tracking.flush();
      expect((await eventsOf('web-3')).length).toBe(1);
      expect((await eventsOf('web-4')).length).toBe(1);
    });

    it('OpenFeature.close() sends what the provider holds', async () => {
      const { provider, client } = await connect('web-5', { tracking: { flushIntervalMs: 60_000 } });
      client.track('leave');
      expect(provider.tracking.stats().buffered).toBe(1);
      await OpenFeature.clearProviders();
      expect(provider.tracking.stats()).toMatchObject({ delivered: 1, buffered: 0 });
      expect((await eventsOf('web-5')).map((e) => e.name)).toEqual(['leave']);
    });
  },
);
