import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../openfeature/support/server.ts';
import { createKey, flagId, seedVariedProject } from '../openfeature/support/varied-project.ts';
import type { TestServer } from '../support/server.ts';
import { describeInChromium, launchChromium } from './dashboard-support.ts';
import { buildAndServe, type StaticSite } from './static-site.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/ofrep-web/', import.meta.url));
const BULK = '/ofrep/v1/evaluate/flags';
const POLL_MS = 150;

/**
 * Every response to the bulk endpoint, by method and status, counted where the server sends it;
 * also by method, status and the API key that asked (`POST 200 fsk_…`).
 */
function countBulkResponses(server: TestServer): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  server.app.server.on('request', (request, response) => {
    if (request.url?.split('?')[0] !== BULK) return;
    response.on('finish', () => {
      const key = `${request.method} ${response.statusCode}`;
      add(key);
      const secret = request.headers.authorization?.replace(/^Bearer /, '');
      if (secret) add(`${key} ${secret}`);
    });
  });
  return counts;
}

/** Resolves once `condition` holds, checking every few milliseconds; fails after `timeoutMs`. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeInChromium('@openfeature/web-sdk with @openfeature/ofrep-web-provider in Chromium', () => {
  let api: TestServer;
  let site: StaticSite;
  let browser: Browser;
  let page: Page;
  let key: string;
  let counts: Map<string, number>;
  const pageErrors: string[] = [];
  const count = (key: string) => counts.get(key) ?? 0;

  beforeAll(async () => {
    api = await startServer();
    await seedVariedProject(api);
    key = await createKey(api, { role: 'evaluator' });
    counts = countBulkResponses(api);

    site = await buildAndServe(FIXTURE, 'ofrep-web');

    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    const query = new URLSearchParams({ api: api.url, key, poll: String(POLL_MS), changes: 'polling' });
    await page.goto(`${site.origin}/index.html?${query}`);
    await page.waitForFunction(() => (window as unknown as { status?: string }).status !== undefined, null, {
      timeout: 20_000,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await api?.close();
  });

  const readFlags = (from: Page = page) =>
    from.evaluate(() => (window as unknown as { readFlags: () => Record<string, unknown> }).readFlags());

  it('loads the flags from another origin, through the CORS preflight', async () => {
    expect(await page.evaluate(() => (window as unknown as { status: string }).status)).toBe('ready');
    expect(pageErrors).toEqual([]);
    expect(count('OPTIONS 204')).toBeGreaterThanOrEqual(1);
    const flags = await readFlags();
    expect(flags['new-checkout']).toMatchObject({ value: true, reason: 'TARGETING_MATCH', variant: 'on' });
    expect(flags['banner-text']).toMatchObject({ value: 'Hi', reason: 'DEFAULT', variant: 'short' });
    expect(flags.theme).toMatchObject({
      value: { background: '#000', contrast: 2, nested: { ok: true } },
      reason: 'STATIC',
    });
    expect(flags.discount).toMatchObject({ reason: 'SPLIT' });
    expect([10, 0.5]).toContain((flags.discount as { value: number }).value);
    // Disabled with no value: the page's code default, with OFREP's reason.
    expect(flags.sunset).toMatchObject({ value: 'code default', reason: 'DISABLED' });
    expect(flags.missing).toMatchObject({ value: true, errorCode: 'FLAG_NOT_FOUND' });
  });

  it('polls with If-None-Match and gets 304 while nothing changes', async () => {
    const before = count('POST 304');
    await waitFor(() => count('POST 304') - before >= 3, 'three 304s');
    expect(count('POST 200')).toBe(1);
  });

  it('picks up a flag change made over the management API', async () => {
    const id = await flagId(api, 'banner-text');
    const patched = await api.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: 'long' } });
    expect(patched.status).toBe(200);
    await page.waitForFunction(
      () =>
        (window as unknown as { readFlags: () => Record<string, { value: unknown }> }).readFlags()[
          'banner-text'
        ]?.value === 'Hello there',
      null,
      { timeout: 10_000 },
    );
    const changes = await page.evaluate(() => (window as unknown as { changes: string[][] }).changes);
    expect(changes).toContainEqual(['banner-text']);
    expect(count('POST 200')).toBe(2);
    // And back to 304s once the page has the new state.
    const before = count('POST 304');
    await waitFor(() => count('POST 304') - before >= 2, 'two more 304s');
    expect(count('POST 200')).toBe(2);
  });

  it('with pollInterval 0, a change reaches the page over the event stream as PROVIDER_CONFIGURATION_CHANGED with the new value', async () => {
    const sseKey = await createKey(api, { role: 'evaluator' });
    const ssePage = await browser.newPage();
    ssePage.on('pageerror', (error) => pageErrors.push(String(error)));
    const streams: string[] = [];
    ssePage.on('request', (request) => {
      if (request.url().includes('/ofrep/v1/events')) streams.push(request.url());
    });
    const query = new URLSearchParams({ api: api.url, key: sseKey, poll: '0', changes: 'sse' });
    await ssePage.goto(`${site.origin}/index.html?${query}`);
    await ssePage.waitForFunction(() => (window as unknown as { status?: string }).status === 'ready', null, {
      timeout: 20_000,
    });
    expect((await readFlags(ssePage))['banner-text']).toMatchObject({ value: 'Hello there' });
    await waitFor(() => streams.length > 0, 'the page to open the event stream');
    // Give the stream a moment to be established before the change (it is fetched from another origin).
    await ssePage.waitForTimeout(300);

    const id = await flagId(api, 'banner-text');
    const patched = await api.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: 'short' } });
    expect(patched.status).toBe(200);
    await ssePage.waitForFunction(
      () => (window as unknown as { bannerAtChange: unknown[] }).bannerAtChange.includes('Hi'),
      null,
      { timeout: 10_000 },
    );
    const changes = await ssePage.evaluate(() => (window as unknown as { changes: string[][] }).changes);
    expect(changes).toContainEqual(['banner-text']);
    expect((await readFlags(ssePage))['banner-text']).toMatchObject({ value: 'Hi', variant: 'short' });
    // No polling: one fetch to start and one per event. (The stream also tells a client that connects
    // within 30 s of a change to fetch once more, in case it raced the change: a 304 here.)
    expect(count(`POST 200 ${sseKey}`)).toBe(2);
    expect(count(`POST 304 ${sseKey}`)).toBeLessThanOrEqual(1);
    expect(pageErrors).toEqual([]);
    await ssePage.close();
  });
});
