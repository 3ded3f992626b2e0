import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY } from '../dashboard/support.ts';
import {
  chooseFlag,
  type DashboardBrowser,
  describeInChromium,
  startDashboardBrowser,
} from './dashboard-support.ts';

// Decision 0102: a flag imported from flagd whose targeting cannot be compiled is stored as
// written; its page says so, and the playground shows the error it answers.

describeInChromium('a flagd flag whose targeting cannot be compiled, in the dashboard', () => {
  let ui: DashboardBrowser;
  beforeAll(async () => {
    ui = await startDashboardBrowser();
  }, 120_000);
  afterAll(() => ui?.close());

  it('shows the error on the flag page and in the playground', async () => {
    const project = await ui.server.call('POST', '/v1/projects', {
      key: ADMIN_KEY,
      body: { key: 'flagd-shop', name: 'flagd shop' },
    });
    expect(project.status).toBe(201);
    const imported = await ui.server.call('POST', '/v1/projects/flagd-shop/environments/production/flagd', {
      key: ADMIN_KEY,
      body: {
        flags: {
          banner: {
            state: 'ENABLED',
            variants: { on: true, off: false },
            defaultVariant: 'off',
            targeting: { if: [{ $ref: 'staff' }, 'on', null] },
          },
        },
      },
    });
    expect(imported.body.warnings).toHaveLength(1);
    const { page, errors } = await ui.newPage();
    await ui.signIn(page);
    await page.goto(`${ui.server.url}/projects/flagd-shop/flags/banner`);
    const alert = page.getByRole('alert').filter({ hasText: 'This targeting cannot be evaluated' });
    // The page opens on the first environment; the document went into production.
    await page.getByRole('tab', { name: /Production/ }).click();
    await alert.waitFor();
    expect(await alert.textContent()).toContain('PARSE_ERROR');
    expect(await alert.textContent()).toContain('"staff"');

    await page.goto(`${ui.server.url}/projects/flagd-shop/playground`);
    await chooseFlag(page, 'banner');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await page.getByText('its targeting cannot be evaluated').waitFor();
    expect(await page.locator('main').textContent()).toContain('PARSE_ERROR');
    expect(errors).toEqual([]);
  }, 90_000);
});
