import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { KEY_MAX_LENGTH, KEY_RULE } from '../../src/domain/keys.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { flagBody, WITH_STAGING } from '../support/requests.ts';
import { type DashboardBrowser, describeInChromium, startDashboardBrowser } from './dashboard-support.ts';

// The dashboard's unfinished corners a new user met: long keys, a project's own address,
// empty conditions, scheduling, stale-flag texts and validation messages.

describeInChromium('the dashboard, finished where a new user found it not', () => {
  let ui: DashboardBrowser;
  const call = (method: string, path: string, body?: unknown) => callAsAdmin(ui.server, method, path, body);

  beforeAll(async () => {
    ui = await startDashboardBrowser();
    await call('POST', '/v1/projects', { key: 'finish', name: 'Finish' });
  }, 120_000);
  afterAll(() => ui?.close());

  let errors: string[] = [];
  afterEach(() => expect(errors).toEqual([]));

  async function signedIn(options: { width?: number; height?: number } = {}): Promise<Page> {
    const opened = await ui.newPage({ height: 1000, ...options });
    errors = opened.errors;
    await ui.signIn(opened.page);
    return opened.page;
  }

  it('a flag with a key of the maximum length opens in the flag editor', async () => {
    const key = `long-${'k'.repeat(KEY_MAX_LENGTH - 5)}`;
    await call('POST', '/v1/projects/finish/flags', { key, name: 'Long key' });
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish/flags/${key}`);
    await page.getByRole('heading', { level: 2, name: 'Targeting' }).waitFor();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Long key');
  });

  it('on a phone a long flag name reads in a few lines, both tabs share a line, and list cards name each switch', async () => {
    const key = 'checkout-experience-redesign-for-returning-customers-in-the-netherlands';
    const name = 'Checkout experience redesign for returning customers in the Netherlands and Belgium';
    await call('POST', '/v1/projects', { key: 'narrow', name: 'Narrow' });
    await call('POST', '/v1/projects/narrow/flags', { key, name });
    const page = await signedIn({ width: 390, height: 844 });
    await page.goto(`${ui.server.url}/projects/narrow/flags/${key}`);
    await page.getByRole('heading', { level: 2, name: 'Targeting' }).waitFor();
    const heading = page.getByRole('heading', { level: 1 });
    const lines = await heading.evaluate(
      (h) => h.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(h).lineHeight),
    );
    expect(lines).toBeLessThanOrEqual(5);
    const tabTops = await page
      .getByRole('tab')
      .evaluateAll((tabs) => tabs.map((t) => Math.round(t.getBoundingClientRect().top)));
    expect(tabTops).toHaveLength(2);
    expect(new Set(tabTops).size).toBe(1);

    await page.goto(`${ui.server.url}/projects/narrow/flags`);
    const card = page.getByRole('row', { name: new RegExp(name) });
    await card.waitFor();
    const labels = await card
      .locator('td')
      .evaluateAll((cells) =>
        cells
          .filter((c) => getComputedStyle(c).display !== 'none')
          .map((c) => getComputedStyle(c, '::before').content),
      );
    expect(labels).toEqual(['"Flag"', '"Development"', '"Production"']);
  });

  it('at 1280 px the filters line up with their selects and the scheduled date shows whole', async () => {
    await call('POST', '/v1/projects/finish/flags', { key: 'aligned', name: 'Aligned' });
    const page = await signedIn({ width: 1280, height: 900 });
    await page.goto(`${ui.server.url}/projects/finish/flags`);
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.waitFor();
    const bottoms = await page
      .locator('.filters input[type="search"], .filters select')
      .evaluateAll((controls) => controls.map((c) => Math.round(c.getBoundingClientRect().bottom)));
    expect(bottoms.length).toBeGreaterThan(1);
    expect(new Set(bottoms).size).toBe(1);

    await page.goto(`${ui.server.url}/projects/finish/flags/aligned`);
    const at = page.getByLabel('At', { exact: true });
    await at.waitFor();
    // "12/03/2026, 10:27 AM" and the picker's button need about 15rem; narrower cuts the time off.
    expect((await at.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(240);
  });

  it("a project's own address opens its flags", async () => {
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish`);
    await page.waitForURL(`${ui.server.url}/projects/finish/flags`);
    await page.getByRole('heading', { level: 1, name: 'Flags' }).waitFor();
  });

  it("the audit log's resource filter finds a flag's events by its key", async () => {
    await call('POST', '/v1/projects/finish/flags', { key: 'audited', name: 'Audited' });
    await call('POST', '/v1/projects/finish/flags', { key: 'bystander', name: 'Bystander' });
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish/audit-log`);
    await page.getByLabel('Resource id or key').fill('audited');
    const events = page.locator('.audit-event');
    await expect.poll(() => events.count()).toBe(1);
    await expect.poll(() => events.first().textContent()).toContain('audited');
  });

  /** The message a control's aria-describedby names last: its error. */
  const errorOf = async (page: Page, control: ReturnType<Page['getByLabel']>) => {
    await expect.poll(() => control.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await control.getAttribute('aria-describedby')) ?? '';
    return page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent();
  };

  it("a new rule's variant must be chosen, and an empty condition value is refused beside its field", async () => {
    await call('POST', '/v1/projects/finish/flags', { key: 'blanks', name: 'Blanks' });
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish/flags/blanks`);
    await page.getByRole('heading', { level: 2, name: 'Targeting' }).waitFor();
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByRole('listitem', { name: 'Rule 1' });
    const variant = rule.getByLabel('Variant', { exact: true });
    expect(await variant.locator('option:checked').textContent()).toBe('Choose a variant');
    await rule.getByRole('button', { name: 'Add condition' }).click();
    await rule.getByLabel('Attribute').fill('country');

    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await errorOf(page, variant)).toBe('Choose a variant to serve');

    await variant.selectOption('on');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await errorOf(page, rule.getByLabel('Value', { exact: true }))).toContain('Empty: enter a value');
    const stored = await call('GET', '/v1/projects/finish/flags/blanks');
    expect(stored.version).toBe(1);
  });

  it('on a phone every environment tab, "Production protected" too, is whole on screen', async () => {
    await call('POST', '/v1/projects', {
      key: 'phone',
      name: 'Phone',
      environments: WITH_STAGING,
    });
    await call('POST', '/v1/projects/phone/flags', { key: 'small-screen', name: 'Small screen' });
    const page = await signedIn({ width: 375, height: 800 });
    await page.goto(`${ui.server.url}/projects/phone/flags/small-screen`);
    const tabs = page.getByRole('tablist', { name: 'Environment' }).getByRole('tab');
    await expect.poll(() => tabs.count()).toBe(3);
    const production = tabs.filter({ hasText: 'Production' });
    expect(await production.textContent()).toContain('protected');
    for (const tab of await tabs.all()) {
      const name = (await tab.textContent()) ?? '';
      const box = await tab.boundingBox();
      expect(box, name).not.toBeNull();
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 375, name).toBe(true);
    }
  });

  it('the stale-flags filter, finding none, names both kinds of staleness', async () => {
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish/flags`);
    await page.getByLabel('Stale flags only').check();
    await page.getByText('No flag matches').waitFor();
    const text = await page.getByText('No flag is stale in').textContent();
    expect(text).toContain('30 days without being evaluated');
    expect(text).toContain('served one variant to everyone for 30 days');
    expect(text).not.toContain('served more than one variant');
  });

  it('schedules a default variant a minute ahead, listed as "in 1 minute", after asking for the variant', async () => {
    await call('POST', '/v1/projects/finish/flags', {
      ...flagBody('theme', 'string', { light: 'light', dark: 'dark' }),
      name: 'Theme',
    });
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish/flags/theme`);
    const section = page.getByRole('region', { name: 'Scheduled changes' });
    await section.getByLabel('Environment').selectOption('development');
    await section.getByLabel('Change').selectOption({ label: 'Serve a variant by default' });
    // The form takes minutes: 85 s ahead, cut to the minute, is 25–85 s ahead.
    const inAMinute = new Date(Date.now() + 85_000);
    const local = new Date(inAMinute.getTime() - inAMinute.getTimezoneOffset() * 60_000)
      .toISOString()
      .slice(0, 16);
    await section.getByLabel('At').fill(local);
    await section.getByRole('button', { name: 'Schedule' }).click();
    expect(await errorOf(page, section.getByLabel('Variant to serve'))).toBe('Choose a variant to serve');

    await section.getByLabel('Variant to serve').selectOption('dark');
    await section.getByRole('button', { name: 'Schedule' }).click();
    await page.locator('.toast', { hasText: 'Scheduled: serve "dark" by default in Development.' }).waitFor();
    const row = section.getByRole('row', { name: /serve "dark" by default/ });
    await expect.poll(() => row.getByRole('cell').first().textContent()).toBe('in 1 minute');
    const [scheduled] = await call(
      'GET',
      `/v1/flags/${(await call('GET', '/v1/projects/finish/flags/theme')).id}/scheduled-changes`,
    );
    expect(scheduled).toMatchObject({
      environment: 'development',
      patch: { defaultVariant: 'dark', defaultRollout: null },
    });
  });

  it('a new flag shows the limits of its fields before submitting, and a bad key is refused in words beside it', async () => {
    const page = await signedIn();
    await page.goto(`${ui.server.url}/projects/finish/flags`);
    await page.getByRole('button', { name: 'New flag' }).click();
    const dialog = page.getByRole('dialog');
    const key = dialog.getByLabel('Key');
    const hintOf = async (control: ReturnType<Page['getByLabel']>) => {
      const [hint] = ((await control.getAttribute('aria-describedby')) ?? '').split(' ');
      return page.locator(`[id="${hint}"]`).textContent();
    };
    expect(await hintOf(key)).toContain(KEY_RULE);
    expect(await hintOf(dialog.getByLabel('Name'))).toBe('At most 200 characters.');
    expect(await hintOf(dialog.getByLabel('Description'))).toBe('Optional; at most 2000 characters.');

    await key.fill('not a key!');
    await dialog.getByRole('button', { name: 'Create flag' }).click();
    expect(await errorOf(page, key)).toBe(KEY_RULE);
  });
});
