import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ChangeScheduler } from '../../src/services/governance/change-scheduler.ts';
import { ADMIN_KEY } from '../dashboard/support.ts';
import {
  type DashboardBrowser,
  describeInChromium,
  startDashboardBrowser,
  waitForToast,
} from './dashboard-support.ts';

// docs/product.md §10 in the dashboard, as two people meet it: one schedules a change and requests another in
// an environment that requires an approval; a second approves it; both see the flag change.

const PASSWORD = 'a long enough password';

describeInChromium('change safety in Chromium: schedule, request, approve as another account', () => {
  let ui: DashboardBrowser;
  let errors: string[] = [];
  const call = async (method: string, path: string, body?: unknown, cookie?: string) => {
    const res = await ui.server.call(method, path, cookie ? { cookie, body } : { key: ADMIN_KEY, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const flag = () => call('GET', '/v1/projects/walk/flags/banner');

  /** An editor account, joined through an invitation as a person would. */
  async function editor(email: string, name: string): Promise<void> {
    const admin = await ui.server.signIn();
    const invited = await call('POST', '/v1/invitations', { email, role: 'editor', project: 'walk' }, admin);
    await call('POST', '/v1/auth/join', { token: invited.token, name, password: PASSWORD });
  }

  async function openAs(email: string, path: string): Promise<Page> {
    const opened = await ui.newPage({ height: 1400 });
    errors.push(...opened.errors);
    opened.page.on('pageerror', (error) => errors.push(error.message));
    await ui.signIn(opened.page, email, PASSWORD);
    await opened.page.goto(`${ui.server.url}${path}`);
    return opened.page;
  }

  beforeAll(async () => {
    ui = await startDashboardBrowser();
    await call('POST', '/v1/projects', { key: 'walk', name: 'Walk' });
    await call('POST', '/v1/projects/walk/flags', { key: 'banner', name: 'Banner' });
    await call('PATCH', '/v1/projects/walk/environments/production', { requiredApprovals: 1 });
    await editor('eve@example.com', 'Eve');
    await editor('ed@example.com', 'Ed');
  }, 120_000);
  afterAll(() => ui?.close());
  afterEach(() => {
    expect(errors).toEqual([]);
    errors = [];
  });

  it('schedules a change from the flag page, lists it, and shows it applied when it came due', async () => {
    const page = await openAs('eve@example.com', '/projects/walk/flags/banner');
    const section = page.getByRole('region', { name: 'Scheduled changes' });
    await section.getByLabel('Environment').selectOption('development');
    await section.getByLabel('Change').selectOption('on');
    await section.getByRole('button', { name: 'Schedule' }).click();
    await waitForToast(page, 'Scheduled: turn on in Development.');
    await section.getByRole('cell', { name: 'pending' }).waitFor();

    // The time comes (a clock two hours ahead), and the scheduler applies it.
    const later = () => Date.now() + 2 * 3_600_000;
    const scheduler = new ChangeScheduler(ui.server.store, ui.server.services.scheduledChanges, {
      clock: later,
    });
    expect((await scheduler.runDue()).applied).toHaveLength(1);
    expect((await flag()).environments.development.enabled).toBe(true);
    await page.reload();
    await page
      .getByRole('region', { name: 'Scheduled changes' })
      .getByRole('cell', { name: 'applied' })
      .waitFor();
  });

  it('requests a change to production, which another editor approves and sees applied', async () => {
    const eve = await openAs('eve@example.com', '/projects/walk/flags/banner');
    await eve.getByRole('tab', { name: /Production/ }).click();
    await eve.getByRole('switch', { name: 'Serve Banner in Production', exact: true }).click();
    await eve.getByRole('button', { name: 'Save changes' }).click();
    // It becomes a request, and the question says so (docs/decisions/1711).
    const confirm = eve.getByRole('dialog', { name: 'Send for approval: save Banner?' });
    await confirm.getByText(/not applied/).waitFor();
    await confirm.getByRole('button', { name: 'Send for approval' }).click();
    await waitForToast(eve, /Change request sent/);
    expect((await flag()).environments.production.enabled).toBe(false);
    // Eve sees her request on the flag page, and cannot approve it.
    const pending = eve.getByRole('region', { name: 'Pending change requests' });
    await pending.getByText('Eve asks to change').waitFor();
    expect(await pending.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    const ed = await openAs('ed@example.com', '/projects/walk/change-requests');
    const card = ed.getByRole('article', { name: 'Change request by Eve' });
    await card.getByRole('rowheader', { name: 'production: switch' }).waitFor();
    // Now and after, once the flag has loaded beside the request.
    await expect
      .poll(() => card.getByRole('row', { name: /production: switch/ }).textContent())
      .toMatch(/off\W*on/);
    await card.getByRole('button', { name: 'Approve' }).click();
    await waitForToast(ed, 'Applied.');
    expect((await flag()).environments.production.enabled).toBe(true);
    await ed.goto(`${ui.server.url}/projects/walk/flags/banner`);
    await ed.getByRole('tab', { name: /Production/ }).click();
    expect(await ed.getByRole('switch', { name: 'Banner in Production' }).getAttribute('aria-checked')).toBe(
      'true',
    );
  });
});
