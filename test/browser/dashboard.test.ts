import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY } from '../dashboard/support.ts';
import {
  chooseRuleSegment,
  type DashboardBrowser,
  describeInChromium,
  followMainNavigation,
  startDashboardBrowser,
} from './dashboard-support.ts';

/** FLAGSTAFF_SCREENSHOTS=1 saves the moments only this walk reaches (a new key's secret) to docs/screenshots/. */
const SCREENSHOTS = process.env.FLAGSTAFF_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
  : undefined;

async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS === undefined) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.waitForTimeout(150);
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: false });
}

const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

const toast = (page: Page, text: string) => page.locator('.toast', { hasText: text }).waitFor();

describeInChromium('the dashboard in Chromium, as a new user', () => {
  let ui: DashboardBrowser;
  beforeAll(async () => {
    ui = await startDashboardBrowser();
    // The later tests work on a flag of their own, whatever the first one did.
    await ui.server.call('POST', '/v1/projects', { key: ADMIN_KEY, body: { key: 'demo', name: 'Demo' } });
    await ui.server.call('POST', '/v1/projects/demo/flags', {
      key: ADMIN_KEY,
      body: { key: 'banner', name: 'Banner' },
    });
  }, 120_000);
  afterAll(() => ui?.close());

  it('signs in, builds a segment and a targeted flag, makes an evaluator key that serves it, then revokes it', async () => {
    const { page, context, errors } = await ui.newPage();
    const origin = ui.server.url;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });

    await page.goto(`${origin}/`);
    await ui.signIn(page);
    await page.waitForURL(`${origin}/projects`);

    // A project.
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Key').fill('shop');
    await page.getByLabel('Name').fill('Shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(`${origin}/projects/shop/flags`);
    await page.getByText('No flags yet').waitFor();

    // A segment with two rules.
    await followMainNavigation(page, 'Segments');
    await page.getByRole('button', { name: 'New segment' }).click();
    await page.getByLabel('Key').fill('beta-nl');
    await page.getByLabel('Name').fill('Dutch pro customers');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('heading', { name: 'Dutch pro customers', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add rule' }).click();
    // The segment's conditions are called rules, as the page calls them.
    const first = page.getByRole('group', { name: 'Rule 1' });
    await first.getByLabel('Attribute').fill('country');
    await first.getByLabel('Operator').selectOption('equals');
    await first.getByLabel('Value').fill('NL');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const second = page.getByRole('group', { name: 'Rule 2' });
    await second.getByLabel('Attribute').fill('plan');
    await second.getByLabel('Operator').selectOption('in');
    await second.getByLabel('Values').fill('pro\nenterprise');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await toast(page, 'Saved Dutch pro customers.');

    // A flag, switched on in production with a rule on the segment.
    await followMainNavigation(page, 'Flags');
    await page.getByRole('button', { name: 'New flag' }).click();
    await page.getByLabel('Key').fill('new-checkout');
    await page.getByLabel('Name').fill('New checkout');
    await page.getByLabel('Tags').fill('checkout, web');
    await page.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('heading', { name: 'New checkout', level: 1 }).waitFor();
    // It opens on development, not on the protected production.
    await expect
      .poll(() => page.getByRole('tab', { name: /Development/ }).getAttribute('aria-selected'))
      .toBe('true');
    await page.getByRole('tab', { name: /Production/ }).click();
    await page.getByRole('switch', { name: 'Serve New checkout in Production' }).click();
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByRole('listitem', { name: 'Rule 1' });
    await rule.getByLabel('Description').fill('Dutch pro customers first');
    await chooseRuleSegment(rule, 'beta-nl');
    await rule.getByRole('button', { name: 'Add segment' }).click();
    await rule.getByLabel('Variant', { exact: true }).selectOption('on');
    await page
      .getByRole('group', { name: 'Default: what to serve' })
      .getByLabel('Variant', { exact: true })
      .selectOption('off');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // Production is protected: saving there asks first.
    await page
      .getByRole('dialog', { name: 'Change Production?' })
      .getByRole('button', { name: /^Yes/ })
      .click();
    await toast(page, 'Saved New checkout.');
    await expect.poll(() => page.getByRole('button', { name: 'Save changes' }).count()).toBe(0);

    // The list shows it on in production and off in development.
    await followMainNavigation(page, 'Flags');
    const production = page.getByRole('switch', { name: 'New checkout in Production' });
    await expect.poll(() => production.getAttribute('aria-checked')).toBe('true');
    const development = page.getByRole('switch', { name: 'New checkout in Development' });
    expect(await development.getAttribute('aria-checked')).toBe('false');

    // Settings → API keys: an evaluator key for production, copied once.
    await page.getByRole('link', { name: 'Settings → API keys' }).click();
    await page.getByText('No API keys yet').waitFor();
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name').fill('checkout service');
    await page.getByLabel('Role').selectOption('evaluator');
    await page.getByLabel('Only these:').check();
    await page.getByLabel('Production').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('This is the only time the key is shown.').waitFor();
    const shown = await page.getByLabel('The new API key').inputValue();
    expect(shown).toMatch(/^fsk_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied ✓' }).waitFor();
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toBe(shown);
    await shot(page, 'api-key-created');
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    await expect.poll(() => page.getByText(shown).count()).toBe(0);
    const row = page.getByRole('row', { name: /checkout service/ });
    await expect.poll(() => row.textContent()).toContain(shown.slice(0, 12));
    await expect.poll(() => row.textContent()).toContain('evaluator');

    // Beside the key, its flagd sync selector: a derived credential, not the key, for production only.
    await page.getByRole('button', { name: 'flagd sync selectors of checkout service' }).click();
    const selector = await page.getByLabel('production', { exact: true }).inputValue();
    expect(selector).toMatch(/\/production#fsc\./);
    expect(selector).not.toContain(secret);
    expect(await page.getByLabel('development', { exact: true }).count()).toBe(0);
    await shot(page, 'api-key-flagd-sync');
    await page.getByRole('button', { name: 'Copy the production selector' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(selector);
    await page.getByRole('button', { name: 'Close' }).click();

    // The key serves what the rule promises, over plain HTTP.
    const evaluate = (attributes: object) =>
      fetch(
        `${origin}/v1/flags/new-checkout?environment=production&attributes=${encodeURIComponent(JSON.stringify(attributes))}`,
        { headers: { authorization: `Bearer ${secret}` } },
      );
    const dutchPro = await evaluate({ targetingKey: 'u-1', country: 'NL', plan: 'pro' });
    expect(dutchPro.status).toBe(200);
    expect(await dutchPro.json()).toEqual({
      key: 'new-checkout',
      type: 'boolean',
      value: true,
      reason: 'targeting',
      variant: 'on',
    });
    const elsewhere = await evaluate({ targetingKey: 'u-2', country: 'DE', plan: 'pro' });
    expect(await elsewhere.json()).toMatchObject({ value: false, reason: 'default', variant: 'off' });

    // Revoked, with confirmation: the next request is a 401.
    await page.getByRole('button', { name: 'Revoke checkout service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key “checkout service”?' });
    await dialog.waitFor();
    await shot(page, 'api-key-revoke');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await toast(page, 'Key checkout service revoked.');
    await expect.poll(() => row.textContent()).toContain('revoked');
    expect((await evaluate({ targetingKey: 'u-1', country: 'NL', plan: 'pro' })).status).toBe(401);

    // The playground says which rule decided.
    await page.getByRole('link', { name: 'Playground' }).click();
    await page
      .getByLabel('Attributes (JSON)')
      .fill('{"targetingKey": "u-1", "country": "NL", "plan": "enterprise"}');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await expect.poll(() => result.textContent()).toContain('true');
    await expect
      .poll(() => result.textContent())
      .toContain('rule 1 (“Dutch pro customers first”): in segment beta-nl');

    // The audit log names the person.
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByText('api_key.revoked').waitFor();
    await expect.poll(() => page.locator('.audit-event').first().textContent()).toContain('ada');
    expect(errors).toEqual([]);
  });

  it('shows the API’s errors beside the field they concern', async () => {
    const { page } = await ui.newPage();
    await ui.signIn(page);
    await page.goto(`${ui.server.url}/projects/default/flags`);
    await page.getByRole('button', { name: 'New flag' }).click();
    await page.getByLabel('Key').fill('not a key!');
    await page.getByRole('button', { name: 'Create flag' }).click();
    const key = page.getByLabel('Key');
    await expect.poll(() => key.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await key.getAttribute('aria-describedby')) ?? '';
    const message = page.locator(`[id="${describedBy.split(' ').at(-1)}"]`);
    await expect.poll(() => message.textContent()).toContain('Letters, digits, ".", "_" and "-"');
    // The summary links to the field.
    await page.getByRole('alert').getByRole('link', { name: 'key' }).click();
    await expect.poll(() => isFocused(key)).toBe(true);
  });

  it('asks before leaving a flag with unsaved edits, and stays when told to', async () => {
    const { page } = await ui.newPage();
    await ui.signIn(page);
    await page.goto(`${ui.server.url}/projects/demo/flags/banner`);
    await page.getByRole('switch', { name: 'Serve Banner in Development' }).click();
    await followMainNavigation(page, 'Segments');
    const dialog = page.getByRole('dialog', { name: 'Leave this page?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(page.url()).toMatch(/\/flags\/banner$/);
    await expect.poll(() => page.getByRole('button', { name: 'Save changes' }).isVisible()).toBe(true);
    // The browser is asked too, for reloads and closing the tab.
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.type());
        void d.dismiss();
      }),
    );
    const reloading = page.reload({ timeout: 3000 }).catch(() => {});
    expect(await asked).toBe('beforeunload');
    await reloading;
  });

  it('works with the keyboard alone: sign in, open a flag and switch it', async () => {
    const { page } = await ui.newPage();
    await page.goto(`${ui.server.url}/`);
    await page.getByLabel('Email').waitFor();
    await page.keyboard.press('Tab');
    await expect.poll(() => isFocused(page.getByLabel('Email'))).toBe(true);
    await page.keyboard.type('ada@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery staple');
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.goto(`${ui.server.url}/projects/demo/flags`);
    const toggle = page.getByRole('switch', { name: 'Banner in Development' });
    await toggle.waitFor();
    // Tab from the top of the page to the switch, as a keyboard user would.
    await page.getByRole('heading', { name: 'Flags', level: 1 }).focus();
    for (let i = 0; i < 30 && !(await toggle.evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await expect.poll(() => isFocused(toggle)).toBe(true);
    await page.keyboard.press('Space');
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    await toast(page, 'Banner is on in development.');
  });

  it('signs out: back to the sign-in page, and the old session no longer opens the API', async () => {
    const { page, context } = await ui.newPage();
    await ui.signIn(page);
    const cookie = (await context.cookies()).find((c) => c.name === 'flagstaff_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const res = await ui.server.call('GET', '/v1/projects', { cookie: `flagstaff_session=${cookie?.value}` });
    expect(res.status).toBe(401);
  });
});
