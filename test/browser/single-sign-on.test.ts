import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY, type DashboardServer, startDashboardServer } from '../dashboard/support.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { providerSsoSettings } from '../support/sso-settings.ts';
import {
  buildDashboard,
  type DashboardBrowser,
  describeInChromium,
  expectAccessible,
  startDashboardBrowser,
} from './dashboard-support.ts';

/**
 * The whole single sign-on in Chromium against a real OpenID provider (oidc-provider) in this
 * process: the sign-in page's button, the provider's login form, the callback, the dashboard.
 */
describeInChromium('Single sign-on in the dashboard', () => {
  let dashboard: DashboardBrowser;
  let provider: TestOidcProvider;
  const callbackUrl = () => `${dashboard.server.url}/v1/auth/oidc/callback`;

  beforeAll(async () => {
    // The server's address is known once it listens; the settings read it when a sign-in starts.
    const settings = providerSsoSettings(
      () => provider,
      callbackUrl,
      'flag-admins=admin,shop-devs=editor:webshop,support=viewer',
    );
    dashboard = await startDashboardBrowser({ signIn: { sso: settings } });
    provider = await startOidcProvider(callbackUrl);
    const webshop = await dashboard.server.call('POST', '/v1/projects', {
      key: ADMIN_KEY,
      body: { key: 'webshop', name: 'Webshop' },
    });
    expect(webshop.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await provider?.close();
  });

  /** A fresh browser (no session here or at the provider) that only reaches loopback addresses. */
  async function freshPage(): Promise<{ page: Page; context: BrowserContext }> {
    const { page, context } = await dashboard.newPage();
    // The provider's development pages import a web font: nothing leaves this machine.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    return { page, context };
  }

  /** From the dashboard's sign-in page through the provider's login form, as a person would. */
  async function signInWithSso(page: Page, login: string, startAt = '/') {
    await page.goto(`${dashboard.server.url}${startAt}`);
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).waitFor();
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }

  it('creates the account at the first sign-in with the role its group maps to, and applies a group change at the next', async () => {
    provider.people.set('alice', {
      email: 'Alice@example.com',
      name: 'Alice Liddell',
      groups: ['shop-devs'],
    });
    const first = await freshPage();
    await signInWithSso(first.page, 'alice', '/projects/webshop/flags');
    await first.page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(new URL(first.page.url()).pathname).toBe('/projects/webshop/flags');
    const created = await dashboard.server.store.findAccountByEmail('alice@example.com');
    expect(created).toMatchObject({ name: 'Alice Liddell', role: 'editor', sso: { subject: 'alice' } });
    const webshop = await dashboard.server.store.findProject('webshop');
    expect(created?.projectId).toBe(webshop?.id);
    await first.context.close();

    provider.people.set('alice', {
      email: 'alice@example.com',
      name: 'Alice Liddell',
      groups: ['flag-admins', 'support'],
    });
    const second = await freshPage();
    await signInWithSso(second.page, 'alice', '/settings/members');
    const members = second.page.getByRole('table', { name: 'Accounts' });
    const aliceRow = members.getByRole('row').filter({ hasText: 'alice@example.com' });
    await expect.poll(() => aliceRow.textContent(), { timeout: 30_000 }).toMatch(/admin/);
    expect(await aliceRow.textContent()).toMatch(/SSO \(flag-admins → admin, support → viewer\)/);
    const adaRow = members.getByRole('row').filter({ hasText: 'ada@example.com' });
    expect(await adaRow.textContent()).toContain('Password');
    // An SSO account has no password to reset (decision 1890); a password account does.
    const resetButton = { name: /^Reset password/ };
    expect(await adaRow.getByRole('button', resetButton).count()).toBe(1);
    expect(await aliceRow.getByRole('button', resetButton).count()).toBe(0);
    const promoted = await dashboard.server.store.findAccountByEmail('alice@example.com');
    expect(promoted).toMatchObject({ role: 'admin', projectId: null, id: created?.id });
    await second.context.close();
  }, 120_000);

  it('refuses a person in no mapped group with a page that says so, and creates no account', async () => {
    provider.people.set('bob', { email: 'bob@example.com', name: 'Bob', groups: ['marketing'] });
    const { page, context } = await freshPage();
    await signInWithSso(page, 'bob');
    await page.getByRole('heading', { name: 'You cannot sign in here' }).waitFor();
    const text = await page.locator('main').textContent();
    expect(text).toMatch(/not in any group that has access to Flagstaff/);
    expect(text).not.toMatch(/marketing|groups/);
    await expectAccessible(page);
    expect(await dashboard.server.store.findAccountByEmail('bob@example.com')).toBeUndefined();
    await page.getByRole('link', { name: 'Back to the sign-in page' }).click();
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).waitFor();
    await context.close();
  }, 120_000);

  it('with password sign-in off, shows no password form and the password route answers 403', async () => {
    const server: DashboardServer = await startDashboardServer({
      dashboardRoot: await buildDashboard(),
      signIn: { passwordSignIn: false },
    });
    try {
      const { page, context } = await dashboard.newPage();
      await page.goto(`${server.url}/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText('No access? Ask an admin of your organisation.').waitFor();
      expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
      await context.close();

      const refused = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: 'ada@example.com', password: 'correct horse battery staple' },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/Password sign-in is turned off on this server/);
      expect((await server.call('GET', '/v1/projects', { key: ADMIN_KEY })).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 120_000);
});
