import { type Client, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  FlagstaffServerProvider,
  type FlagstaffServerProviderOptions,
  type TrackingLogger,
} from '../../clients/openfeature/src/server.ts';
import { describeEachDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import type { TestServer } from '../support/server.ts';
import { startServer } from './support/server.ts';
import { countEventPosts, gatewayLosingFirstAnswer, overload, storedEvents } from './support/tracking.ts';
import { createKey, seedVariedProject } from './support/varied-project.ts';

/** Warnings and errors the package logged, as text. */
function recordingLogger(): TrackingLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    warn: (...args) => lines.push(args.join(' ')),
    error: (...args) => lines.push(args.join(' ')),
  };
}

/** @flagstaff/openfeature's server provider with the official server SDK, against a real Flagstaff over a socket. */
describeEachDatabase(
  '@openfeature/server-sdk with FlagstaffServerProvider: track() and exposures',
  (database) => {
    let server: TestServer;
    let key: string;
    let posts: Map<string, number>;
    let domain = 0;

    beforeAll(async () => {
      server = await startServer(database);
      await seedVariedProject(server);
      key = await createKey(server, { role: 'evaluator', environments: ['production'] });
      posts = countEventPosts(server);
    });
    afterAll(async () => {
      await OpenFeature.close();
      await server.close();
    });

    /** A provider of its own OpenFeature domain, to `baseUrl` (default: the server), and its client. */
    async function connect(
      options: Partial<FlagstaffServerProviderOptions> = {},
      baseUrl = server.url,
    ): Promise<{ provider: FlagstaffServerProvider; client: Client }> {
      const name = `${database.name}-tracking-${++domain}`;
      const provider = new FlagstaffServerProvider({
        baseUrl,
        headers: { Authorization: `Bearer ${key}` },
        logger: recordingLogger(),
        ...options,
      });
      await OpenFeature.setProviderAndWait(name, provider);
      return { provider, client: OpenFeature.getClient(name) };
    }

    const eventsOf = async (unit: string) =>
      (await storedEvents(server)).filter((event) => event.unit === unit);

    it('client.track() reaches POST /v1/events with its context, value and details', async () => {
      const { provider, client } = await connect();
      client.track('purchase', { targetingKey: 'track-1', plan: 'pro' }, { value: 19.99, currency: 'EUR' });
      expect(provider.tracking.stats()).toMatchObject({ buffered: 1, delivered: 0 });
      await provider.tracking.flush();
      expect(provider.tracking.stats()).toMatchObject({ buffered: 0, delivered: 1, refused: 0, dropped: 0 });
      const [stored] = await eventsOf('track-1');
      expect(stored).toMatchObject({
        name: 'purchase',
        unit: 'track-1',
        context: { plan: 'pro' },
        value: 19.99,
        details: { currency: 'EUR' },
      });
      expect(Math.abs((stored?.timestamp ?? 0) - Date.now())).toBeLessThan(60_000);
    });

    it('the exposure hook sends $exposure once per flag, variant and targeting key', async () => {
      const { provider, client } = await connect({ exposures: true });
      for (let i = 0; i < 3; i++) {
        expect(
          await client.getBooleanValue('new-checkout', false, { targetingKey: 'expo-1', country: 'NL' }),
        ).toBe(true);
      }
      await client.getBooleanValue('new-checkout', false, { targetingKey: 'expo-2', country: 'BE' });
      // No variant is served for an unknown flag: nothing was shown, nothing is exposed.
      await client.getBooleanValue('missing', false, { targetingKey: 'expo-1' });
      await provider.tracking.flush();
      const exposures = [...(await eventsOf('expo-1')), ...(await eventsOf('expo-2'))];
      expect(exposures.map((e) => [e.name, e.unit, e.details])).toEqual([
        ['$exposure', 'expo-1', { flag: 'new-checkout', variant: 'on' }],
        ['$exposure', 'expo-2', { flag: 'new-checkout', variant: 'off' }],
      ]);
    });

    it('sends no $exposure by default: single evaluations record their exposures on the server', async () => {
      const { provider, client } = await connect();
      await client.getBooleanValue('new-checkout', false, { targetingKey: 'expo-default', country: 'NL' });
      await provider.tracking.flush();
      expect(provider.tracking.stats().delivered).toBe(0);
      expect(await eventsOf('expo-default')).toEqual([]);
    });

    it('batches: 250 events go in three requests of at most 100', async () => {
      const { provider, client } = await connect({ tracking: { flushIntervalMs: 60_000 } });
      const before = posts.get('200') ?? 0;
      for (let i = 0; i < 250; i++) client.track('view', { targetingKey: 'batch-1' }, { value: i });
      // Two full batches leave on their own; the last 50 wait for the interval or a flush.
      expect(await eventually(async () => provider.tracking.stats().delivered === 200, 5_000)).toBe(true);
      await provider.tracking.flush();
      expect((posts.get('200') ?? 0) - before).toBe(3);
      expect((await eventsOf('batch-1')).length).toBe(250);
    });

    it('after the server answers 503 with Retry-After, sends the batch again once it may, and it is stored once', async () => {
      const release = overload(server);
      const { provider, client } = await connect();
      const before = posts.get('503') ?? 0;
      for (let i = 0; i < 3; i++) client.track('signup', { targetingKey: `busy-${i}` });
      const started = Date.now();
      await provider.tracking.flush();
      expect(posts.get('503') ?? 0).toBe(before + 1);
      expect(provider.tracking.stats()).toMatchObject({ buffered: 3, delivered: 0 });
      release();
      expect(await eventually(async () => provider.tracking.stats().delivered === 3, 5_000)).toBe(true);
      // Retry-After: 1 was honoured.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      for (let i = 0; i < 3; i++) expect((await eventsOf(`busy-${i}`)).length).toBe(1);
    });

    it('a batch stored but whose answer was lost (a gateway 503) is sent again with the same ids and stored once', async () => {
      const gateway = await gatewayLosingFirstAnswer(server.url);
      try {
        const { provider, client } = await connect({}, gateway.url);
        for (let i = 0; i < 5; i++) client.track('checkout', { targetingKey: 'lost-answer' }, { value: i });
        await provider.tracking.flush();
        expect(await eventually(async () => provider.tracking.stats().delivered === 5, 5_000)).toBe(true);
        expect(gateway.bodies).toHaveLength(2);
        expect(gateway.bodies[1]).toBe(gateway.bodies[0]);
        const stored = await eventsOf('lost-answer');
        expect(stored.map((e) => e.value).sort()).toEqual([0, 1, 2, 3, 4]);
      } finally {
        await gateway.close();
      }
    });

    it('holds at most maxBufferSize events while the server cannot take them, dropping the oldest, counted', async () => {
      const release = overload(server);
      const { provider, client } = await connect({ tracking: { maxBufferSize: 20, batchSize: 10 } });
      for (let i = 0; i < 50; i++) client.track('scroll', { targetingKey: 'bounded' }, { value: i });
      expect(provider.tracking.stats()).toMatchObject({ buffered: 20, dropped: 30 });
      release();
      await provider.tracking.flush();
      expect(await eventually(async () => provider.tracking.stats().delivered === 20, 8_000)).toBe(true);
      const values = (await eventsOf('bounded')).map((e) => e.value).sort((a, b) => (a ?? 0) - (b ?? 0));
      expect(values).toEqual(Array.from({ length: 20 }, (_, i) => 30 + i));
    });

    it('never sends again what the server refused: an invalid event is dropped, the others of its batch kept', async () => {
      const logger = recordingLogger();
      const { provider, client } = await connect({ logger });
      const before = posts.get('200') ?? 0;
      client.track('has\nnewline', { targetingKey: 'refused' });
      client.track('fine', { targetingKey: 'refused' });
      client.track('no-unit', {});
      await provider.tracking.flush();
      expect(provider.tracking.stats()).toMatchObject({ delivered: 1, refused: 2, buffered: 0 });
      expect(logger.lines.join('\n')).toMatch(
        /refused 2 of 3 tracking events; the first, "has\nnewline": invalid_name/,
      );
      await provider.tracking.flush();
      expect((posts.get('200') ?? 0) - before).toBe(1);
      expect((await eventsOf('refused')).map((e) => e.name)).toEqual(['fine']);
    });

    it('drops a batch refused whole (401: a revoked key) without retrying, and says so', async () => {
      const logger = recordingLogger();
      const { provider, client } = await connect({
        logger,
        headers: { Authorization: 'Bearer fsk_not-a-key-0000' },
      });
      client.track('purchase', { targetingKey: 'unauthorised' });
      await provider.tracking.flush();
      expect(provider.tracking.stats()).toMatchObject({ refused: 1, buffered: 0, delivered: 0 });
      expect(logger.lines.join('\n')).toMatch(/HTTP 401/);
      expect(logger.lines.join('\n')).not.toMatch(/fsk_/);
    });

    it('closing the provider sends what it holds', async () => {
      const { provider, client } = await connect({ tracking: { flushIntervalMs: 60_000 } });
      for (let i = 0; i < 5; i++) client.track('close', { targetingKey: 'on-close' });
      expect(provider.tracking.stats().buffered).toBe(5);
      await provider.onClose();
      expect(provider.tracking.stats()).toMatchObject({ delivered: 5, buffered: 0 });
      expect((await eventsOf('on-close')).length).toBe(5);
    });

    it('never throws into the application: a context that is not JSON is dropped and counted', async () => {
      const { provider, client } = await connect();
      const cyclic: Record<string, unknown> = { targetingKey: 'cyclic' };
      cyclic.self = cyclic;
      expect(() => client.track('loop', cyclic as never)).not.toThrow();
      expect(provider.tracking.stats()).toMatchObject({ dropped: 1, buffered: 0 });
    });
  },
);
