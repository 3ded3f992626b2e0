import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvaluationCount } from '../../src/storage/insights-store.ts';
import { saveScreenshot } from '../support/screenshots.ts';
import {
  type DashboardBrowser,
  describeInChromium,
  expectAccessible,
  insertFlagMadeAgo,
  startDashboardBrowser,
} from './dashboard-support.ts';

describeInChromium('insights in the dashboard (Chromium)', () => {
  let ui: DashboardBrowser;
  let page: Page;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    ui = await startDashboardBrowser();
    const call = ui.admin;
    const { store } = ui.server;
    const project = await store.findProject('default');
    if (project === undefined) throw new Error('no default project');
    // Flags made some time ago: insights count only minutes since a flag's creation.
    const checkout = await insertFlagMadeAgo(ui.server, {
      key: 'new-checkout',
      name: 'New checkout',
      daysAgo: 2,
    });
    // Nobody has asked for it since.
    await insertFlagMadeAgo(ui.server, { key: 'legacy-banner', name: 'Legacy banner', daysAgo: 60 });
    await call('PATCH', `/v1/flags/${checkout}?environment=production`, {
      enabled: true,
      defaultRollout: {
        weights: [
          { variant: 'on', weight: 30 },
          { variant: 'off', weight: 70 },
        ],
      },
    });
    // A day of traffic, as many nodes would have flushed it: more users each hour, a third on "on".
    const now = Math.floor(Date.now() / 60_000);
    const counts: EvaluationCount[] = [];
    for (let minute = now - 24 * 60 + 5; minute < now; minute += 5) {
      const busy = 40 + Math.round(30 * Math.sin((minute / 60 / 24) * 2 * Math.PI) + 30);
      for (const [variant, share] of [
        ['on', 0.3],
        ['off', 0.7],
      ] as const) {
        counts.push({
          projectId: project.id,
          flagKey: 'new-checkout',
          environment: 'production',
          minute,
          variant,
          reason: 'split',
          count: Math.round(busy * share),
        });
      }
    }
    await store.insights.addEvaluationCounts(counts);
    // And a few real evaluations, counted by the server and flushed as every 10 s.
    for (const user of ['ann', 'bob', 'cem']) {
      await call('POST', '/v1/flags/new-checkout/evaluate?project=default', {
        environment: 'production',
        attributes: { targetingKey: user },
      });
    }
    await ui.server.services.insights.flush();
    ({ page } = await ui.newPage({ width: 1280, height: 900 }));
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) cspErrors.push(m.text());
    });
    await ui.signIn(page);
  }, 120_000);
  afterAll(() => ui?.close());

  it('charts evaluations per variant on the flag page, and shows the same numbers as a table', async () => {
    await page.goto(`${ui.server.url}/projects/default/flags/new-checkout`);
    const section = page.getByRole('region', { name: 'Insights' });
    await section.getByText(/evaluations in Production in the last 24 hours/).waitFor();
    await section.locator('canvas').first().waitFor();
    const chart = section.getByRole('img', {
      name: /Evaluations per variant, last 24 hours: off [\d,]+, on [\d,]+/,
    });
    await chart.waitFor();
    await expectAccessible(page);
    await saveScreenshot('insights', (path) => section.screenshot({ path }));

    const summary = await section.getByText(/evaluations in Production/).textContent();
    const total = Number(/([\d,]+) evaluations/.exec(summary ?? '')?.[1]?.replaceAll(',', ''));
    await section.getByRole('radio', { name: 'Table' }).check();
    const table = section.getByRole('table', { name: 'Evaluations per variant, last 24 hours' });
    await table.waitFor();
    const headers = await table.locator('thead th').allTextContents();
    expect(headers).toEqual(['From', 'off', 'on', 'All']);
    const footer = await table.locator('tfoot td').allTextContents();
    expect(Number(footer.at(-1)?.replaceAll(',', ''))).toBe(total);
    expect(await table.locator('tbody tr').count()).toBeGreaterThanOrEqual(96);
    await expectAccessible(page);

    await section.getByRole('radio', { name: '30 days' }).check();
    await section.getByText(/in the last 30 days/).waitFor();
    await expectAccessible(page);
  });

  it('lists when each flag was last evaluated, marks stale flags and filters them', async () => {
    await page.goto(`${ui.server.url}/projects/default/flags`);
    const legacy = page.getByRole('row', { name: /Legacy banner/ });
    await legacy.waitFor();
    await expect(legacy.getByText('stale', { exact: true })).toBeDefined();
    expect(await legacy.textContent()).toContain('Never evaluated in production.');
    expect(await page.getByRole('row', { name: /New checkout/ }).textContent()).toMatch(/ago|just now/);
    await page
      .getByRole('region', { name: /Most evaluated in Production/ })
      .getByText('new-checkout')
      .waitFor();
    await expectAccessible(page);

    await page.getByLabel('Stale flags only').check();
    await page.getByRole('row', { name: /New checkout/ }).waitFor({ state: 'detached' });
    expect(await page.getByRole('row').count()).toBe(2); // the header and Legacy banner
    await expectAccessible(page);
  });

  it('loads no script or style the Content-Security-Policy refuses', () => {
    expect(cspErrors).toEqual([]);
  });
});
