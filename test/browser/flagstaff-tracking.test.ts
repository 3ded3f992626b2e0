import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { storedEvents } from '../openfeature/support/tracking.ts';
import { createKey, seedVariedProject } from '../openfeature/support/varied-project.ts';
import { eventually } from '../support/eventually.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeInChromium, launchChromium } from './dashboard-support.ts';
import { buildAndServe, type StaticSite } from './static-site.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/flagstaff-tracking/', import.meta.url));

interface FixtureWindow {
  status?: string;
  track: (name: string, details?: Record<string, number | string>) => void;
  read: (flag: string) => unknown;
  stats: () => { delivered: number; buffered: number };
  flush: () => Promise<void>;
}

describeInChromium(
  '@openfeature/web-sdk with FlagstaffWebProvider in Chromium: track(), exposures, page hide',
  () => {
    let api: TestServer;
    let site: StaticSite;
    let browser: Browser;
    let key: string;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      api = await startTestServer();
      await seedVariedProject(api);
      key = await createKey(api, { role: 'evaluator', environments: ['production'] });
      site = await buildAndServe(FIXTURE, 'tracking');
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await site?.close();
      await api?.close();
    });

    /** A page of the site, on another origin than the API, ready with the provider for `unit`. */
    async function open(unit: string, intervalMs: number): Promise<Page> {
      const page = await browser.newPage();
      page.on('pageerror', (error) => pageErrors.push(String(error)));
      const query = new URLSearchParams({ api: api.url, key, unit, interval: String(intervalMs) });
      await page.goto(`${site.origin}/index.html?${query}`);
      await page.waitForFunction(
        () => (window as unknown as { status?: string }).status !== undefined,
        null,
        {
          timeout: 20_000,
        },
      );
      expect(await page.evaluate(() => (window as unknown as { status: string }).status)).toBe('ready');
      return page;
    }

    const eventsOf = async (unit: string) => (await storedEvents(api)).filter((event) => event.unit === unit);

    it('client.track() and the exposure hook reach POST /v1/events from another origin', async () => {
      const page = await open('chromium-1', 200);
      await page.evaluate(() => {
        const w = window as unknown as FixtureWindow;
        w.track('purchase', { value: 42, currency: 'EUR' });
        w.read('new-checkout');
        w.read('new-checkout');
      });
      expect(
        await eventually(async () => (await eventsOf('chromium-1')).length === 2, 10_000),
        'both events stored within the flush interval',
      ).toBe(true);
      const stored = await eventsOf('chromium-1');
      expect(stored.map((e) => [e.name, e.value, e.details]).sort()).toEqual([
        ['$exposure', null, { flag: 'new-checkout', variant: 'on' }],
        ['purchase', 42, { currency: 'EUR' }],
      ]);
      expect(stored[0]?.context).toEqual({ country: 'NL' });
      expect(pageErrors).toEqual([]);
      await page.close();
    });

    it('leaving the page sends what it holds, in a keepalive request that outlives it', async () => {
      const page = await open('chromium-leave', 600_000);
      await page.evaluate(() => {
        for (let i = 0; i < 5; i++) (window as unknown as FixtureWindow).track('scrolled', { value: i });
      });
      expect(await page.evaluate(() => (window as unknown as FixtureWindow).stats().buffered)).toBe(5);
      await page.goto('about:blank');
      expect(await eventually(async () => (await eventsOf('chromium-leave')).length === 5, 10_000)).toBe(
        true,
      );
      expect(pageErrors).toEqual([]);
      await page.close();
    });

    it('a tab switched away (visibilitychange to hidden) sends what it holds', async () => {
      const page = await open('chromium-hidden', 600_000);
      await page.evaluate(() => (window as unknown as FixtureWindow).track('viewed'));
      // The visibility state a browser sets when its tab is switched away or its window minimised.
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      expect(await eventually(async () => (await eventsOf('chromium-hidden')).length === 1, 10_000)).toBe(
        true,
      );
      await page.waitForFunction(() => (window as unknown as FixtureWindow).stats().delivered === 1);
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  },
);
