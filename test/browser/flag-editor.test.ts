import type { Page } from 'playwright-core';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { flagBody } from '../support/requests.ts';
import {
  chooseRuleSegment,
  type DashboardSuiteOptions,
  describeDashboard,
  RULE_SEGMENTS,
  waitForToast,
} from './dashboard-support.ts';

// The flag editor's traps (decisions 0603–0605), as a person meets them: an empty rule that would serve
// everyone, renamed variants that blocked saving, weights that read as percentages, and
// production one click away.

/** The dashboard the tests drive, and the project they work in. */
const SUITE: DashboardSuiteOptions = { project: { key: 'traps', name: 'Traps' } };

describeDashboard(
  'the flag editor in Chromium: no accidental "everyone", renames, weights, protected production',
  SUITE,
  (ui) => {
    const call = (method: string, path: string, body?: unknown) => ui.admin(method, path, body);
    const flagOf = (key: string) => call('GET', `/v1/projects/traps/flags/${key}`);

    beforeAll(async () => {
      await call('POST', '/v1/projects/traps/segments', {
        key: 'beta',
        name: 'Beta testers',
        rules: [{ type: 'attribute', attribute: 'beta', operator: 'equals', value: true }],
      });
    }, 120_000);

    /** Page script errors of every page opened, checked after each test. */
    let errors: string[] = [];
    afterEach(() => expect(errors).toEqual([]));

    async function openFlag(key: string): Promise<Page> {
      const opened = await ui.newPage({ height: 1000 });
      const { page } = opened;
      errors = opened.errors;
      await ui.signIn(page);
      await page.goto(`${ui.server.url}/projects/traps/flags/${key}`);
      await page.getByRole('heading', { level: 2, name: 'Targeting' }).waitFor();
      return page;
    }

    const save = (page: Page) => page.getByRole('button', { name: 'Save changes' }).click();
    const saved = async (page: Page, name: string) => {
      await waitForToast(page, `Saved ${name}.`);
      await expect.poll(() => page.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
    };

    it('never saves a rule as "everyone" by accident: a picked segment is added, an empty rule is refused beside the picker, everyone is a choice', async () => {
      await call('POST', '/v1/projects/traps/flags', { key: 'contrast', name: 'Contrast' });
      const page = await openFlag('contrast');

      // A segment chosen in the picker but never added with the button is still saved.
      await page.getByRole('button', { name: 'Add rule' }).click();
      const first = page.getByRole('listitem', { name: 'Rule 1' });
      await chooseRuleSegment(first, 'beta');
      await first.getByText('Saving adds beta too').waitFor();
      await first.getByLabel('Variant', { exact: true }).selectOption('on');
      await save(page);
      await saved(page, 'Contrast');
      expect((await flagOf('contrast')).environments.development.rules).toMatchObject([
        { segments: ['beta'], conditions: [], serve: { variant: 'on' } },
      ]);
      await page
        .getByRole('listitem', { name: 'Rule 1' })
        .getByRole('list', { name: 'Chosen segments' })
        .waitFor();

      // A rule left empty is refused, with the error beside its segment picker.
      await page.getByRole('button', { name: 'Add rule' }).click();
      const second = page.getByRole('listitem', { name: 'Rule 2' });
      await second.getByLabel('Variant', { exact: true }).selectOption('on');
      await save(page);
      const picker = second.getByLabel(RULE_SEGMENTS);
      await expect.poll(() => picker.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await picker.getAttribute('aria-describedby')) ?? '';
      const message = page.locator(`[id="${describedBy.split(' ').at(-1)}"]`);
      await expect.poll(() => message.textContent()).toContain('"matchAll": true');
      expect((await flagOf('contrast')).environments.development.rules).toHaveLength(1);

      // Everyone, chosen on purpose, is saved as such.
      await second.getByRole('radio', { name: 'Everyone' }).check();
      await second.getByText('Every user who reaches this rule gets what it serves').waitFor();
      await save(page);
      await saved(page, 'Contrast');
      const rules = (await flagOf('contrast')).environments.development.rules;
      expect(rules).toHaveLength(2);
      expect(rules[1]).toMatchObject({ matchAll: true, segments: [], conditions: [] });
      await page.close();
    });

    it('renames variants everywhere they are used: saving works in every environment, with no ghost rows', async () => {
      const flag = await call('POST', '/v1/projects/traps/flags', {
        ...flagBody('colour', 'string', { control: 'control', treatment: 'treatment' }),
        name: 'Colour',
      });
      await call('PATCH', `/v1/flags/${flag.id}?environment=production`, {
        defaultRollout: {
          weights: [
            { variant: 'control', weight: 50 },
            { variant: 'treatment', weight: 50 },
          ],
        },
        targets: [{ variant: 'treatment', values: ['qa-1'] }],
      });
      const page = await openFlag('colour');
      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.getByLabel('Key').nth(0).fill('blue');
      await settings.getByLabel('Key').nth(1).fill('green');

      // The pickers follow the rename instead of falling back to "No value".
      const offPicker = page.getByLabel('When off, serve');
      await expect.poll(() => offPicker.locator('option:checked').textContent()).toBe('blue');
      await page.getByRole('tab', { name: /Production/ }).click();
      const weights = page.getByRole('group', { name: 'Default: what to serve' }).getByLabel(/^Weight of/);
      await expect.poll(() => weights.count()).toBe(2);
      await page.getByLabel('Weight of blue').waitFor();
      await page.getByLabel('Weight of green').waitFor();

      await save(page);
      await page
        .getByRole('dialog', { name: 'Change Production?' })
        .getByRole('button', { name: /^Yes/ })
        .click();
      await saved(page, 'Colour');
      const stored = await flagOf('colour');
      expect(stored.variants.map((v: { key: string }) => v.key)).toEqual(['blue', 'green']);
      expect(stored.environments.development).toMatchObject({ offVariant: 'blue', defaultVariant: 'blue' });
      expect(stored.environments.production).toMatchObject({
        offVariant: 'blue',
        defaultRollout: {
          weights: [
            { variant: 'blue', weight: 50 },
            { variant: 'green', weight: 50 },
          ],
        },
        targets: [{ variant: 'green', values: ['qa-1'] }],
      });
      await page.close();
    });

    it('shows the percentage each weight gives and the total, and makes the total 100 on request', async () => {
      await call('POST', '/v1/projects/traps/flags', {
        ...flagBody('layout', 'string', { a: 'a', b: 'b', c: 'c' }),
        name: 'Layout',
      });
      const page = await openFlag('layout');
      const fallback = page.getByRole('group', { name: 'Default: what to serve' });
      await fallback.getByRole('radio', { name: 'Percentage rollout' }).check();
      await fallback.getByLabel('Weight of a').fill('1');
      await fallback.getByLabel('Weight of b').fill('1');
      await fallback.getByLabel('Weight of c').fill('2');
      const shares = fallback.locator('output.share-of');
      await expect
        .poll(() => shares.allTextContents())
        .toEqual(['25 % of users', '25 % of users', '50 % of users']);
      await fallback.getByText('Total weight 4: each variant gets its weight ÷ 4').waitFor();

      await fallback.getByRole('button', { name: 'Make it 100' }).click();
      await expect.poll(() => fallback.getByLabel('Weight of c').inputValue()).toBe('50');
      expect(await fallback.getByLabel('Weight of a').inputValue()).toBe('25');
      await fallback.getByText('Total weight 100').waitFor();
      expect(await fallback.getByRole('button', { name: 'Make it 100' }).count()).toBe(0);
      await save(page);
      await saved(page, 'Layout');
      expect((await flagOf('layout')).environments.development.defaultRollout.weights).toEqual([
        { variant: 'a', weight: 25 },
        { variant: 'b', weight: 25 },
        { variant: 'c', weight: 50 },
      ]);
      await page.close();
    });

    it('keeps production a deliberate step: the flag opens elsewhere, and production switches ask first', async () => {
      await call('POST', '/v1/projects/traps/flags', { key: 'checkout', name: 'Checkout' });
      const page = await openFlag('checkout');
      expect(await page.getByRole('tab', { name: /Development/ }).getAttribute('aria-selected')).toBe('true');
      await page
        .getByRole('tab', { name: /Production/ })
        .getByText('protected')
        .waitFor();

      await page.goto(`${ui.server.url}/projects/traps/flags`);
      const production = page.getByRole('switch', { name: 'Checkout in Production' });
      await production.click();
      const dialog = page.getByRole('dialog', { name: 'Change Production?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await production.getAttribute('aria-checked')).toBe('false');
      expect((await flagOf('checkout')).environments.production.enabled).toBe(false);

      await production.click();
      await dialog.getByRole('button', { name: 'Yes, switch Checkout on' }).click();
      await waitForToast(page, 'Checkout is on in production.');
      expect((await flagOf('checkout')).environments.production.enabled).toBe(true);

      // An unprotected environment switches at once.
      await page.getByRole('switch', { name: 'Checkout in Development' }).click();
      await waitForToast(page, 'Checkout is on in development.');
      expect(await dialog.isVisible()).toBe(false);
      await page.close();
    });
  },
);
