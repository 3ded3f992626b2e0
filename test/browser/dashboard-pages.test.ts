import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY } from '../dashboard/support.ts';
import { rolloutWeights, variantList } from '../support/builders.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { WITH_STAGING } from '../support/requests.ts';
import { saveScreenshot } from '../support/screenshots.ts';
import {
  chooseFlag,
  type DashboardBrowser,
  describeDashboard,
  expectAccessible,
} from './dashboard-support.ts';

/** A project a team would have after a few weeks: the pages then show what they are for. */
async function seed(ui: DashboardBrowser): Promise<void> {
  const call = (method: string, path: string, body?: unknown) => callAsAdmin(ui.server, method, path, body);
  await call('POST', '/v1/projects', {
    key: 'shop',
    name: 'Web shop',
    description: 'Storefront, checkout and the mobile apps',
    environments: WITH_STAGING,
  });
  await call('POST', '/v1/projects', { key: 'warehouse', name: 'Warehouse', description: 'Internal tools' });
  const segment = (key: string, name: string, rules: unknown[], extra: object = {}) =>
    call('POST', '/v1/projects/shop/segments', { key, name, rules, ...extra });
  await segment('dutch-users', 'Dutch users', [
    { type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' },
  ]);
  await segment(
    'pro-plans',
    'Pro and enterprise plans',
    [
      { type: 'attribute', attribute: 'plan', operator: 'in', values: ['pro', 'enterprise'] },
      { type: 'attribute', attribute: 'seats', operator: 'gte', value: 5 },
    ],
    { included: ['acme-corp'], excluded: ['churned-co'] },
  );
  await segment('new-app', 'New mobile app', [
    { type: 'attribute', attribute: 'appVersion', operator: 'semver_gte', value: '3.2.0' },
    { type: 'attribute', attribute: 'platform', operator: 'in', values: ['ios', 'android'] },
  ]);
  const flag = (body: object) => call('POST', '/v1/projects/shop/flags', body);
  const checkout = await flag({
    key: 'new-checkout',
    name: 'New checkout',
    description: 'The redesigned one-page checkout',
    tags: ['checkout', 'web'],
  });
  await call('PATCH', `/v1/flags/${checkout.id}`, {
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'off',
        targets: [{ variant: 'on', values: ['qa-anna', 'qa-bob'] }],
        rules: [
          {
            description: 'Dutch pro customers first',
            segments: ['dutch-users', 'pro-plans'],
            serve: { variant: 'on' },
          },
          {
            description: 'A quarter of the new app',
            segments: ['new-app'],
            conditions: [
              {
                type: 'attribute',
                attribute: 'email',
                operator: 'ends_with',
                value: '@example.com',
                negate: true,
              },
            ],
            serve: {
              rollout: {
                weights: rolloutWeights({ on: 25, off: 75 }),
              },
            },
          },
        ],
      },
      staging: { enabled: true },
    },
  });
  const colour = await flag({
    key: 'checkout-button-colour',
    name: 'Checkout button colour',
    type: 'string',
    tags: ['checkout', 'experiment'],
    variants: variantList({ blue: '#1f4fd6', green: '#1a7f37', orange: '#c2410c' }),
  });
  await call('PATCH', `/v1/flags/${colour.id}?environment=production`, {
    enabled: true,
    defaultRollout: {
      weights: rolloutWeights({ blue: 50, green: 30, orange: 20 }),
    },
  });
  await flag({
    key: 'search-results-per-page',
    name: 'Search results per page',
    type: 'number',
    tags: ['search'],
    variants: variantList({ twenty: 20, fifty: 50 }),
  });
  await flag({
    key: 'onboarding',
    name: 'Onboarding tour',
    type: 'object',
    variants: variantList({ short: { steps: 3, skippable: true }, long: { steps: 7, skippable: false } }),
  });
  const dark = await flag({ key: 'dark-mode', name: 'Dark mode', tags: ['web'] });
  await call('PATCH', `/v1/flags/${dark.id}?environment=development`, { enabled: true });
  await call('POST', '/v1/projects/shop/api-keys', {
    name: 'checkout service',
    role: 'evaluator',
    environments: ['production'],
  });
  await call('POST', '/v1/projects/shop/api-keys', { name: 'mobile app', role: 'evaluator' });
  await call('POST', '/v1/projects/shop/api-keys', { name: 'CI pipeline', role: 'editor' });
  const old = await call('POST', '/v1/projects/shop/api-keys', { name: 'old backend', role: 'viewer' });
  await call('DELETE', `/v1/api-keys/${old.id}`);
  await call('POST', '/v1/invitations', { email: 'grace@example.com', role: 'editor', project: null });
  // A public address (TEST-NET-3), so the SSRF guard lets it through; nothing delivers in this test.
  await call('POST', '/v1/projects/shop/webhooks', {
    url: 'https://203.0.113.10/hooks/flagstaff',
    events: ['flag.*', 'segment.updated'],
  });
  const invited = await call('POST', '/v1/invitations', {
    email: 'linus@example.com',
    role: 'viewer',
    project: 'shop',
  });
  await ui.server.call('POST', '/v1/auth/join', {
    body: { token: invited.token, name: 'Linus', password: 'viewer password 1' },
  });
}

describeDashboard(
  'every dashboard page in Chromium: no serious accessibility violations, readable on a phone',
  {},
  (ui) => {
    let desktop: Page;
    let phone: Page;
    let joinPath: string;
    const cspErrors: string[] = [];

    beforeAll(async () => {
      await seed(ui);
      const invitation = await ui.server.call('POST', '/v1/invitations', {
        key: ADMIN_KEY,
        body: { email: 'margaret@example.com', role: 'admin', project: null },
      });
      joinPath = invitation.body.path;
      for (const size of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        const { page } = await ui.newPage(size);
        page.on('console', (m) => {
          if (m.text().includes('Content Security Policy')) cspErrors.push(m.text());
        });
        if (size.width === 1280) desktop = page;
        else phone = page;
      }
    }, 120_000);

    /**
     * A page of the tour: its address, a text that shows it has arrived, what a person does there
     * (`visit`) before it is judged, and whether its screenshot shows it whole (a long editor).
     */
    interface TourPage {
      readonly path: string;
      readonly ready: string;
      readonly visit?: (page: Page) => Promise<void>;
      readonly whole?: boolean;
    }

    /** The page opens on the first unprotected environment; the seeded targeting is in production. */
    const inProduction = async (page: Page) => {
      await page.getByRole('tab', { name: /Production/ }).click();
      await page.getByText('Percentage rollout').first().waitFor();
    };

    /** Segment pages are addressed by key, like flags, and say which flags use them. */
    const openFromTheList = async (page: Page) => {
      await page.getByRole('link', { name: 'Pro and enterprise plans' }).click();
      await page.waitForURL(/\/segments\/pro-plans$/);
      await page
        .getByRole('region', { name: 'Used by' })
        .getByRole('link', { name: 'New checkout' })
        .waitFor();
      await page.locator('main').getByText('Who is in it').first().waitFor();
    };

    const evaluateForUser42 = async (page: Page) => {
      await chooseFlag(page, 'new-checkout');
      await page
        .getByLabel('Attributes (JSON)')
        .fill('{\n  "targetingKey": "user-42",\n  "country": "NL",\n  "plan": "pro",\n  "seats": 12\n}');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await page.getByText('Dutch pro customers first').waitFor();
    };

    /** The address holds the user: the flags come without typing, each with what decided it. */
    const showsUser42 = (page: Page) =>
      page
        .getByRole('row', { name: /New checkout/ })
        .getByText('Dutch pro customers first')
        .waitFor();

    const checkWebhookActions = async (page: Page) => {
      // What the webhook has still to deliver (nothing delivers in this suite).
      await page.getByText(/^Backlog: /).waitFor();
      // Delete comes last, after the harmless actions, not between them.
      const actions = await page.locator('section.panel .form-actions > button').allTextContents();
      expect(actions.at(-1)).toMatch(/^Delete/);
      await page.getByRole('button', { name: 'Show deliveries' }).click();
      await page.getByText('Nothing sent yet').waitFor();
    };

    const PAGES: Readonly<Record<string, TourPage>> = {
      projects: { path: '/projects', ready: 'Web shop' },
      flags: { path: '/projects/shop/flags', ready: 'Checkout button colour' },
      flag: {
        path: '/projects/shop/flags/new-checkout',
        ready: 'Targeting',
        visit: inProduction,
        whole: true,
      },
      'flag-rollout': {
        path: '/projects/shop/flags/checkout-button-colour',
        ready: 'Percentage rollout',
        visit: inProduction,
        whole: true,
      },
      segments: { path: '/projects/shop/segments', ready: 'Pro and enterprise plans' },
      segment: {
        path: '/projects/shop/segments',
        ready: 'Pro and enterprise plans',
        visit: openFromTheList,
        whole: true,
      },
      environments: { path: '/projects/shop/environments', ready: 'Staging' },
      playground: {
        path: '/projects/shop/playground',
        ready: 'Evaluate',
        visit: evaluateForUser42,
      },
      'user-view': {
        path: `/projects/shop/user-view?environment=production&context=${encodeURIComponent(
          JSON.stringify({ targetingKey: 'user-42', country: 'NL', plan: 'pro', seats: 12 }),
        )}`,
        ready: 'Flags for user-42 in Production',
        visit: showsUser42,
        whole: true,
      },
      'audit-log': { path: '/projects/shop/audit-log', ready: 'flag.updated' },
      'api-keys': { path: '/projects/shop/settings/api-keys', ready: 'checkout service' },
      webhooks: {
        path: '/projects/shop/settings/webhooks',
        ready: 'https://203.0.113.10/hooks/flagstaff',
        visit: checkWebhookActions,
      },
      'organisation-api-keys': { path: '/settings/api-keys', ready: 'Admin key (first start)' },
      members: { path: '/settings/members', ready: 'grace@example.com' },
      'organisation-audit-log': { path: '/audit-log', ready: 'flag.updated' },
      'your-account': { path: '/settings/account', ready: 'Change your password' },
    };

    /** Opens the tour's page `name` in `page` and does there what a person would first. */
    async function open(page: Page, name: string): Promise<void> {
      const tour = PAGES[name];
      if (tour === undefined) throw new Error(`No page ${name} in the tour.`);
      await page.goto(`${ui.server.url}${tour.path}`);
      await page.locator('main').getByText(tour.ready, { exact: false }).first().waitFor();
      await tour.visit?.(page);
      // Let toasts and transitions settle before judging or photographing the page.
      await page.waitForTimeout(200);
    }

    /** Each page, for the README (FLAGSTAFF_SCREENSHOTS=1); long editors are shown whole. */
    function shot(page: Page, name: string): Promise<void> {
      const fullPage = PAGES[name]?.whole ?? false;
      return saveScreenshot(name, (path) => page.screenshot({ path, fullPage }));
    }

    it('the sign-in and join pages', async () => {
      const { page } = await ui.newPage();
      await page.goto(`${ui.server.url}/sign-in`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await expectAccessible(page);
      await shot(page, 'sign-in');
      await page.goto(`${ui.server.url}${joinPath}`);
      await page.getByText('margaret@example.com').waitFor();
      await expectAccessible(page);
      await shot(page, 'join');
      await ui.signIn(desktop);
      await ui.signIn(phone);
    });

    for (const name of Object.keys(PAGES)) {
      it(`${name} at 1280×800 and at phone width`, async () => {
        await open(desktop, name);
        await expectAccessible(desktop);
        await shot(desktop, name);

        await open(phone, name);
        await expectAccessible(phone);
        await shot(phone, `${name}-phone`);
      });
    }

    it('the confirmation dialog and an unsaved flag', async () => {
      await open(desktop, 'flag');
      await desktop.getByText('Rule 2').first().waitFor();
      await desktop.getByRole('switch', { name: 'Serve New checkout in Production' }).click();
      await desktop.getByRole('button', { name: 'Delete' }).first().isDisabled();
      await expectAccessible(desktop);
      await desktop.getByRole('button', { name: 'Discard' }).click();
      await desktop.getByRole('button', { name: 'Delete' }).click();
      await desktop.getByRole('dialog').waitFor();
      await expectAccessible(desktop);
      await shot(desktop, 'confirm-delete');
      await desktop.keyboard.press('Escape');
    });

    it('a create dialog, the audit log’s differences and the playground’s OFREP note', async () => {
      await open(desktop, 'flags');
      await desktop.getByRole('button', { name: 'New flag' }).click();
      const dialog = desktop.getByRole('dialog', { name: 'New flag' });
      await dialog.getByLabel('Type').selectOption('string');
      await expectAccessible(desktop);
      await shot(desktop, 'create-flag');
      await desktop.keyboard.press('Escape');
      await expect.poll(() => dialog.isVisible()).toBe(false);

      await open(desktop, 'audit-log');
      const updated = desktop.locator('.audit-event', { hasText: 'flag.updated' }).first();
      await updated.getByText('Show the change').click();
      await updated.getByRole('columnheader', { name: 'Before' }).waitFor();
      await expectAccessible(desktop);

      await open(desktop, 'playground');
      await chooseFlag(desktop, 'checkout-button-colour');
      await desktop.getByLabel('Attributes (JSON)').fill('{"country": "NL"}');
      await desktop.getByRole('button', { name: 'Evaluate' }).click();
      await desktop.getByText('OFREP answers differently').waitFor();
      await expectAccessible(desktop);
      // A JSON error leaves no answer on screen that belongs to other attributes.
      await desktop.getByLabel('Attributes (JSON)').fill('{"country": ');
      await desktop.getByRole('button', { name: 'Evaluate' }).click();
      await desktop.getByText('Evaluate to see the value and why.').waitFor();
    });

    it('loads no script or style the Content-Security-Policy refuses', () => {
      expect(cspErrors).toEqual([]);
    });
  },
);
