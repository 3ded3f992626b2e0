import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { setupActor } from '../access/support.ts';
import { failOnPageErrors } from '../support/page-errors.ts';
import {
  type DashboardSuiteOptions,
  describeDashboard,
  expectAccessible,
  waitForToast,
} from './dashboard-support.ts';

// The flag page shows a flag's release plan as a timeline (docs/releases.md): its milestones, the
// one running, when the next step is due, its guards' readings, who did what and why it stopped.

const SLOW = 120_000;
const PLAN = '/v1/projects/rel/flags/checkout/environments/production/release-plan';

/** The dashboard the tests drive, and the project they work in. */
const SUITE: DashboardSuiteOptions = { project: { key: 'rel', name: 'Releases' } };

describeDashboard('release plans on the flag page, in Chromium', SUITE, (ui) => {
  const watch = failOnPageErrors();

  async function open(width: number): Promise<Page> {
    const opened = await ui.newPage({ width, height: width < 600 ? 844 : 1400 });
    watch(opened.page);
    opened.page.setDefaultTimeout(20_000);
    await ui.signIn(opened.page);
    await opened.page.goto(`${ui.server.url}/projects/rel/flags/checkout`);
    await opened.page.getByRole('tab', { name: /Production/ }).click();
    await opened.page.getByRole('heading', { name: 'Release plan in Production' }).waitFor();
    return opened.page;
  }

  beforeAll(async () => {
    await ui.admin('POST', '/v1/projects/rel/flags', {
      key: 'checkout',
      variants: [
        { key: 'old', value: false },
        { key: 'new', value: true },
      ],
    });
    await ui.admin('PATCH', '/v1/projects/rel/flags/checkout?environment=production', {
      enabled: true,
      defaultVariant: 'old',
    });
    await ui.admin('POST', '/v1/projects/rel/metrics', {
      key: 'purchase',
      event: 'purchase',
      kind: 'conversion',
    });
    await ui.admin('POST', PLAN, {
      treatment: 'new',
      milestones: [
        { name: 'canary', rollout: 10, hold: '1h' },
        { name: 'half', rollout: 50, hold: '1h' },
        { name: 'everyone', rollout: 100, hold: 'until-proceeded' },
      ],
      guards: [{ kind: 'metric', name: 'purchases', metric: 'purchase' }],
    });
  }, SLOW);

  it(
    'starts a plan, shows the milestone running and the next step due, and proceeds on a click',
    async () => {
      const page = await open(1280);
      await page.getByText('Draft', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Start' }).click();
      await waitForToast(page, 'Release plan: running.');
      const current = page.locator('.release-timeline [aria-current="step"]');
      await expect.poll(() => current.textContent()).toContain('canary');
      await page.getByText('Next step due').waitFor();
      await page.getByRole('button', { name: 'Proceed to the next milestone' }).click();
      await waitForToast(page, 'Release plan: running.');
      await expect.poll(() => current.textContent()).toContain('half');
      const timeline = page.getByRole('table', { name: 'Timeline' });
      await timeline.getByRole('row', { name: /progressed to half/ }).waitFor();
      expect(await timeline.getByRole('row', { name: /started .*Admin|started/ }).count()).toBeGreaterThan(0);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'shows the guard that stopped it, with its figures, and the reason, axe-clean at 1280 and 390 px',
    async () => {
      // A clear look, then a breach, as the guard checker records them: the plan rolls back as itself.
      const releases = ui.server.services.releases;
      const watched = await releases.get(setupActor, 'rel', 'checkout', 'production');
      await releases.recordLook(watched.id, watched.version, [
        {
          guard: 'purchases',
          at: new Date(Date.now() - 60_000).toISOString(),
          status: 'clear',
          figures: { effect: -0.02, bound: 0.05 },
          message: 'purchase: effect -2.00 %, bound 5.00 %; no regression shown',
        },
      ]);
      const plan = await releases.get(setupActor, 'rel', 'checkout', 'production');
      await releases.recordLook(plan.id, plan.version, [
        {
          guard: 'purchases',
          at: new Date().toISOString(),
          status: 'breached',
          figures: { effect: -0.3, bound: -0.12 },
          message:
            'purchase is lower with the new variant: effect -30.00 %, always-valid bound -12.00 % (α 0.05)',
        },
      ]);
      for (const width of [1280, 390]) {
        const page = await open(width);
        await page.getByText('Rolled back', { exact: true }).waitFor();
        await page.getByText(/Stopped: Guard "purchases" breached/).waitFor();
        const guards = page.getByRole('table', { name: 'Guards' });
        await guards
          .getByRole('row', { name: /purchases/ })
          .getByText('breached')
          .waitFor();
        await page
          .getByRole('table', { name: 'Timeline' })
          .getByRole('row', { name: /rolled back/ })
          .waitFor();
        await expectAccessible(page, `the flag page with a rolled-back plan at ${width}`);
        await page.context().close();
      }
    },
    SLOW,
  );
});
