import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { AggregateFold } from '../../src/services/measurement/aggregate-fold.ts';
import { combineMeasuredComparisons } from '../../src/services/measurement/comparison-statistics.ts';
import { ExperimentComparisons } from '../../src/services/measurement/experiment-comparisons.ts';
import { EVEN_SPLIT } from '../support/requests.ts';
import { saveScreenshot } from '../support/screenshots.ts';
import { ADMIN_KEY } from '../support/server.ts';
import {
  chooseFlag,
  type DashboardSuiteOptions,
  describeDashboard,
  expectAccessible,
  followMainNavigation,
} from './dashboard-support.ts';

// The experiment pages (SPEC §13): the list, the setup form, and the results — an effect and its
// interval per metric, the effect over time and the sample-ratio warning — at desktop and phone
// width, axe clean.

const SLOW = 120_000;
const HOUR = 3_600_000;

/** The dashboard the tests drive, and the project they work in. */
const SUITE: DashboardSuiteOptions = { project: { key: 'lab', name: 'Lab' } };

describeDashboard('the experiment pages', SUITE, (ui) => {
  const call = (method: string, path: string, body?: unknown) => ui.admin(method, path, body);
  const events = async (list: readonly object[]) => {
    for (let i = 0; i < list.length; i += 1000) {
      const res = await ui.server.call('POST', '/v1/events', {
        key: ADMIN_KEY,
        body: { events: list.slice(i, i + 1000) },
        headers: { 'x-flagstaff-project': 'lab', 'x-flagstaff-environment': 'production' },
      });
      expect(res.status).toBe(200);
    }
  };
  const experimentOn = async (flag: string, key: string, name: string) => {
    await call('POST', '/v1/projects/lab/flags', { key: flag });
    await call('PATCH', `/v1/projects/lab/flags/${flag}?environment=production`, EVEN_SPLIT);
    await call('POST', '/v1/projects/lab/experiments', {
      key,
      name,
      flag,
      environment: 'production',
      control: 'off',
      treatments: ['on'],
      metrics: { primary: 'bought', secondary: ['revenue'] },
    });
    return call('POST', `/v1/projects/lab/experiments/${key}/start`);
  };
  /** `n` units shown a variant (as bulk clients report it), some of whom buy. */
  const exposedBuyers = (flag: string, n: number, treated: (i: number) => boolean) =>
    Array.from({ length: n }, (_, i) => {
      const variant = treated(i) ? 'on' : 'off';
      const unit = `${flag}-${i}`;
      const buys = (i * 7919) % 100 < (variant === 'on' ? 14 : 10);
      return [
        { name: '$exposure', context: { targetingKey: unit }, details: { flag, variant } },
        ...(buys ? [{ name: 'purchase', context: { targetingKey: unit }, value: 20 + (i % 30) }] : []),
      ];
    }).flat();

  beforeAll(async () => {
    await call('POST', '/v1/projects/lab/metrics', {
      key: 'bought',
      name: 'Bought',
      event: 'purchase',
      kind: 'conversion',
    });
    await call('POST', '/v1/projects/lab/metrics', {
      key: 'revenue',
      name: 'Revenue',
      event: 'purchase',
      kind: 'sum',
    });
    const banner = await experimentOn('banner', 'new-banner', 'New banner');
    await experimentOn('promo', 'skewed-promo', 'Skewed promo');
    await call('POST', '/v1/projects/lab/flags', { key: 'checkout' });
    const exposures = exposedBuyers('banner', 4000, (i) => i % 2 === 0);
    // 52/48 where the flag splits 50/50.
    const skewed = exposedBuyers('promo', 10_000, (i) => i < 5200);
    // Exposures first, then the purchases a moment later, as they would come.
    await events(exposures.filter((e) => e.name === '$exposure'));
    await events(skewed.filter((e) => e.name === '$exposure'));
    await ui.server.services.exposures.flush();
    await events([...exposures, ...skewed].filter((e) => e.name === 'purchase'));
    await new AggregateFold(
      ui.server.store,
      combineMeasuredComparisons(new ExperimentComparisons(ui.server.store)),
      {
        settleMs: 0,
      },
    ).pass();
    // The hours before: the effect as it stood then, growing to today's.
    const metrics = await call('GET', '/v1/projects/lab/metrics');
    const now = Math.floor(Date.now() / HOUR);
    for (const metric of metrics) {
      for (let h = 6; h >= 1; h--) {
        const share = (7 - h) / 7;
        const units = Math.round(2000 * share);
        const sums = (rate: number, value: number) => {
          const buyers = Math.round(units * rate);
          const v = metric.kind === 'conversion' ? 1 : value;
          return {
            units,
            sum: buyers * v,
            sumSquares: buyers * v * v,
            preSum: 0,
            preSumSquares: 0,
            sumProducts: 0,
          };
        };
        await ui.server.store.aggregates.putSnapshot(banner.projectId, banner.id, metric.id, {
          hour: now - h,
          variants: { off: sums(0.1, 34), on: sums(0.1 + 0.006 * (7 - h), 34) },
        });
      }
    }
  }, SLOW);

  async function signedIn(path: string, width: number): Promise<{ page: Page; errors: string[] }> {
    const opened = await ui.newPage({ width, height: width < 600 ? 844 : 1000 });
    opened.page.setDefaultTimeout(20_000);
    await ui.signIn(opened.page);
    await opened.page.goto(`${ui.server.url}${path}`);
    return opened;
  }

  for (const width of [1280, 390]) {
    it(
      `lists the experiments and sets one up as a draft, at ${width} px`,
      async () => {
        const { page, errors } = await signedIn('/projects/lab/flags', width);
        if (width < 600) await page.getByRole('button', { name: 'Menu' }).click();
        await followMainNavigation(page, 'Experiments');
        await page.getByRole('heading', { level: 1, name: 'Experiments' }).waitFor();
        await page.getByRole('link', { name: 'New banner' }).waitFor();
        await expectAccessible(page, `the experiment list at ${width} px`);
        await saveScreenshot(`experiments-${width}`, (path) => page.screenshot({ path, fullPage: true }));

        await page.getByRole('button', { name: 'New experiment' }).click();
        const dialog = page.getByRole('dialog', { name: 'New experiment' });
        await dialog.getByLabel('Key').fill(`checkout-${width}`);
        await chooseFlag(dialog, 'checkout');
        await dialog.getByLabel('Control').selectOption('off');
        await dialog.getByRole('checkbox', { name: 'on', exact: true }).check();
        await dialog.getByLabel('Primary metric').selectOption('bought');
        await dialog.getByRole('radio', { name: /Bayesian/ }).check();
        await expectAccessible(page, `the setup form at ${width} px`);
        await saveScreenshot(`experiment-setup-${width}`, (path) => page.screenshot({ path }));
        await dialog.getByRole('button', { name: 'Create experiment' }).click();
        await page.getByRole('heading', { level: 1, name: /checkout-/ }).waitFor();
        await page.getByRole('button', { name: 'Start experiment' }).waitFor();
        const made = await call('GET', `/v1/projects/lab/experiments/checkout-${width}`);
        expect(made).toMatchObject({ status: 'draft', analysis: { method: 'bayesian' }, control: 'off' });
        expect(errors).toEqual([]);
      },
      SLOW,
    );

    it(
      `shows results: the effect and its interval per metric, the effect over time, at ${width} px`,
      async () => {
        const { page, errors } = await signedIn('/projects/lab/experiments/new-banner', width);
        await page.getByRole('heading', { level: 1, name: /New banner/ }).waitFor();
        const bought = page.getByRole('region', { name: /Bought/ });
        await bought.getByRole('img', { name: /Relative effect on Bought against off: on: \+/ }).waitFor();
        await bought.getByRole('img', { name: /Relative effect on Bought over 7 hours/ }).waitFor();
        await expect(bought.getByRole('row', { name: /^on/ }).textContent()).resolves.toMatch(/p = /);
        expect(await page.locator('.srm-warning').count()).toBe(0);
        await expectAccessible(page, `the results at ${width} px`);
        await saveScreenshot(`experiment-results-${width}`, (path) =>
          page.screenshot({ path, fullPage: true }),
        );
        expect(errors).toEqual([]);
      },
      SLOW,
    );

    it(
      `tells whoever edits the flag that an experiment measures its split, at ${width} px`,
      async () => {
        const { page, errors } = await signedIn('/projects/lab/flags/banner', width);
        await page.getByRole('tab', { name: /Production/ }).click();
        const notice = page.locator('.notice', { hasText: 'is running on this flag here' });
        await notice.waitFor();
        await notice.getByRole('link', { name: 'New banner' }).waitFor();
        await expectAccessible(page, `the flag page at ${width} px`);
        expect(errors).toEqual([]);
      },
      SLOW,
    );

    it(
      `warns of a sample-ratio mismatch, at ${width} px`,
      async () => {
        const { page, errors } = await signedIn('/projects/lab/experiments/skewed-promo', width);
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).toContain('Sample ratio mismatch');
        expect(await alert.textContent()).toContain('5,200 on');
        await expectAccessible(page, `the SRM warning at ${width} px`);
        expect(errors).toEqual([]);
      },
      SLOW,
    );
  }
});
