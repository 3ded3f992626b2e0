import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY } from '../dashboard/support.ts';
import {
  type DashboardBrowser,
  describeInChromium,
  followMainNavigation,
  startDashboardBrowser,
  waitForToast,
} from './dashboard-support.ts';

// Decisions 1004 and 1005 in the dashboard: a person changes their password; an admin demotes an account
// and hands it a reset link, which its owner uses; the organisation's audit log shows all of it.

const PASSWORD = 'a long enough password';

describeInChromium(
  'accounts in Chromium: own password, role change, reset link, organisation audit log',
  () => {
    let ui: DashboardBrowser;
    let errors: string[] = [];
    const ids = new Map<string, string>();

    /** An account joined through an invitation, as a person would. */
    async function join(email: string, name: string, role: string): Promise<void> {
      const invited = await ui.server.call('POST', '/v1/invitations', {
        key: ADMIN_KEY,
        body: { email, role, project: null },
      });
      const joined = await ui.server.call('POST', '/v1/auth/join', {
        body: { token: invited.body.token, name, password: PASSWORD },
      });
      expect(joined.status).toBe(201);
      ids.set(name, joined.body.account.id);
    }

    async function open(email: string, password = PASSWORD): Promise<Page> {
      const opened = await ui.newPage({ height: 1400 });
      opened.page.on('pageerror', (error) => errors.push(error.message));
      await ui.signIn(opened.page, email, password);
      return opened.page;
    }

    beforeAll(async () => {
      ui = await startDashboardBrowser();
      await join('bea@example.com', 'Bea', 'admin');
      await join('cal@example.com', 'Cal', 'editor');
    }, 120_000);
    afterAll(() => ui?.close());
    afterEach(() => {
      expect(errors).toEqual([]);
      errors = [];
    }, 90_000);

    it('changes your own password: the current one is checked, other sessions end, this one stays', async () => {
      const elsewhere = await ui.server.signIn('cal@example.com', PASSWORD);
      const page = await open('cal@example.com');
      await followMainNavigation(page, 'Your account');
      const form = page.getByRole('region', { name: 'Change your password' });
      await form.getByLabel('Current password').fill('not my password');
      await form.getByLabel('New password').fill('cal changed it now');
      await form.getByRole('button', { name: 'Change password' }).click();
      await expect
        .poll(() => form.locator('.field.invalid .error').textContent())
        .toBe('Not your current password');

      await form.getByLabel('Current password').fill(PASSWORD);
      await form.getByRole('button', { name: 'Change password' }).click();
      await waitForToast(page, 'Password changed.');
      expect((await ui.server.call('GET', '/v1/me', { cookie: elsewhere })).status).toBe(401);
      await page.reload();
      await page.getByRole('heading', { name: 'Your account' }).waitFor();
      await ui.server.signIn('cal@example.com', 'cal changed it now');
    }, 90_000);

    it('lets an admin demote an account and give it a reset link, which its owner uses', async () => {
      const bea = await ui.server.signIn('bea@example.com', PASSWORD);
      expect((await ui.server.call('GET', '/v1/accounts', { cookie: bea })).status).toBe(200);

      const page = await open('ada@example.com', 'correct horse battery staple');
      await followMainNavigation(page, 'Members');
      await page.getByRole('button', { name: 'Change role of Bea' }).click();
      const dialog = page.getByRole('dialog', { name: 'Change the role of Bea' });
      await dialog.getByLabel('Role').selectOption('viewer');
      await dialog.getByRole('button', { name: 'Save role' }).click();
      await waitForToast(page, 'Bea is now viewer of all projects.');
      // Bea's session acts as a viewer from its very next request.
      expect((await ui.server.call('GET', '/v1/accounts', { cookie: bea })).status).toBe(403);

      await page.getByRole('button', { name: 'Reset password of Bea' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Create reset link' }).click();
      const link = await page.getByLabel('Password reset link').inputValue();
      expect(link).toMatch(/\/reset-password#fsr_[\w-]{43}$/);

      const opened = await ui.newPage();
      opened.page.on('pageerror', (error) => errors.push(error.message));
      await opened.page.goto(link);
      await opened.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await opened.page.getByText('bea@example.com').waitFor();
      await opened.page.getByLabel('New password').fill('short');
      await opened.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await opened.page.getByText('must be at least 12 characters').first().waitFor();
      await opened.page.getByLabel('New password').fill('bea has a new one');
      await opened.page.getByRole('button', { name: 'Set password and sign in' }).click();
      await opened.page.getByRole('navigation', { name: 'Main' }).waitFor();
      await opened.page.locator('.who', { hasText: 'Bea' }).waitFor();
      expect((await ui.server.call('GET', '/v1/me', { cookie: bea })).status).toBe(401);

      // The link worked once.
      const again = await ui.newPage();
      await again.page.goto(link);
      await again.page.getByRole('alert').getByText('has been used already').waitFor();
    }, 90_000);

    it('opens an invitation link with nothing in the console, and an unknown address shows the not-found page', async () => {
      const invited = await ui.server.call('POST', '/v1/invitations', {
        key: ADMIN_KEY,
        body: { email: 'dee@example.com', role: 'viewer', project: null },
      });
      const opened = await ui.newPage();
      const logged: string[] = [];
      opened.page.on('console', (message) => {
        if (message.type() === 'error') logged.push(message.text());
      });
      await opened.page.goto(`${ui.server.url}/join#${invited.body.token}`);
      await opened.page.getByRole('heading', { name: 'Join Flagstaff' }).waitFor();
      await opened.page.getByText('dee@example.com').waitFor();
      expect(logged).toEqual([]);

      const page = await open('ada@example.com', 'correct horse battery staple');
      const answer = await page.goto(`${ui.server.url}/members`);
      expect(answer?.status()).toBe(404);
      await page.getByText('There is no page at /members.').waitFor();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    }, 90_000);

    it('shows the organisation audit log with those events, filtered by resource and by person', async () => {
      const page = await open('ada@example.com', 'correct horse battery staple');
      await followMainNavigation(page, 'Audit log (all projects)');
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      const filters = page.getByRole('search', { name: 'Filter the audit log' });
      await filters.getByRole('combobox', { name: /^Resource/ }).selectOption('account');
      const actions = () => page.locator('.audit-event code').allTextContents();
      await expect
        .poll(actions)
        .toEqual(
          expect.arrayContaining([
            'account.password_changed',
            'account.updated',
            'account.reset_link_created',
            'account.password_reset',
          ]),
        );
      expect(await actions()).not.toContain('project.created');
      // Who is chosen by searching the accounts (decision 1846).
      await filters.getByRole('combobox', { name: /^Who/ }).fill('Cal');
      await filters.getByRole('option', { name: /^Cal \(/ }).click();
      await expect.poll(actions).toEqual(['account.password_changed', 'account.created']);
      await filters.getByRole('combobox', { name: /^Action/ }).selectOption({ label: 'password changed' });
      await expect.poll(actions).toEqual(['account.password_changed']);
    }, 90_000);
  },
);
