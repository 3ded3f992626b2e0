import type { Page } from 'playwright-core';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { inviteAndJoin } from '../dashboard/support.ts';
import { BANNER_IN_PRODUCTION } from '../support/banner-rules.ts';
import { Receiver } from '../support/webhook-receiver.ts';
import {
  chooseFlag,
  type DashboardSuiteOptions,
  describeDashboard,
  expectAccessible,
  followMainNavigation,
  waitForToast,
} from './dashboard-support.ts';

// The dashboard finished for every feature: the user view, comparing and copying a flag's
// environments, sending a webhook a test event, and two tabs saving one flag.

/** Each test opens a few pages on a loaded machine. */
const SLOW = 90_000;
const EDITOR = 'eve@example.com';
const PASSWORD = 'a long enough password';

/** The dashboard the tests drive, and the project they work in. */
const SUITE: DashboardSuiteOptions = {
  webhooksAllowPrivate: true,
  project: { key: 'feat', name: 'Features' },
};

describeDashboard('the dashboard, finished for every feature', SUITE, (ui) => {
  const call = (method: string, path: string, body?: unknown) => ui.admin(method, path, body);

  beforeAll(async () => {
    await call('POST', '/v1/projects/feat/segments', { key: 'beta', name: 'Beta', included: ['ada'] });
    const banner = await call('POST', '/v1/projects/feat/flags', { key: 'banner', name: 'Banner' });
    await call('PATCH', `/v1/flags/${banner.id}?environment=production`, BANNER_IN_PRODUCTION);
    await call('POST', '/v1/projects/feat/flags', { key: 'checkout', name: 'Checkout' });
    await call('POST', '/v1/projects/feat/environments', { key: 'staging', name: 'Staging' });
    await call('PATCH', '/v1/projects/feat/environments/staging', { requiredApprovals: 1 });
    const admin = await ui.server.signIn();
    await inviteAndJoin(
      ui.server,
      admin,
      { email: EDITOR, role: 'editor', project: 'feat' },
      { name: 'Eve', password: PASSWORD },
    );
  }, 120_000);

  let errors: string[] = [];
  afterEach(() => {
    expect(errors).toEqual([]);
    errors = [];
  });

  async function signedIn(path: string, width = 1280, email?: string): Promise<Page> {
    const opened = await ui.newPage({ width, height: width < 600 ? 844 : 1000 });
    opened.page.on('pageerror', (error) => errors.push(error.message));
    opened.page.setDefaultTimeout(20_000);
    await ui.signIn(opened.page, email, email === undefined ? undefined : PASSWORD);
    await opened.page.goto(`${ui.server.url}${path}`);
    return opened.page;
  }

  it(
    'the user view shows every flag for the user typed, says what decided each, and keeps the user in its address',
    async () => {
      const page = await signedIn('/projects/feat/flags');
      await followMainNavigation(page, 'User view');
      await page.getByRole('heading', { level: 1, name: 'User view' }).waitFor();
      await page.getByLabel('Targeting key').fill('ada');
      await page.getByLabel('Attribute 1', { exact: true }).fill('country');
      await page.getByLabel('Value of attribute 1').fill('BE');
      await page.getByRole('button', { name: 'Show flags' }).click();

      const banner = page.getByRole('row', { name: /Banner/ });
      await expect.poll(() => banner.textContent()).toContain('rule 2 (“Beta testers”): in segment beta');
      expect(await banner.textContent()).toContain('targeting');
      await expect
        .poll(() => page.getByRole('row', { name: /Checkout/ }).textContent())
        .toContain('the switch: off');
      await page.getByRole('heading', { name: 'Flags for ada in Production' }).waitFor();

      // The address names the user: opened elsewhere, it shows the same without typing.
      const shared = new URL(page.url());
      expect(JSON.parse(shared.searchParams.get('context') ?? '')).toEqual({
        targetingKey: 'ada',
        country: 'BE',
      });
      const colleague = await signedIn(`${shared.pathname}${shared.search}`, 390);
      await expect
        .poll(() => colleague.getByRole('row', { name: /Banner/ }).textContent())
        .toContain('in segment beta');
      expect(await colleague.getByLabel('Targeting key').inputValue()).toBe('ada');
      await expectAccessible(colleague, 'the user view at phone width');

      // As JSON: another user, Dutch this time; a context that is not an object is refused in place.
      await page.getByLabel('JSON').check();
      const json = page.getByLabel('Context (JSON)');
      expect(JSON.parse(await json.inputValue())).toEqual({ targetingKey: 'ada', country: 'BE' });
      await json.fill('["ada"]');
      await page.getByRole('button', { name: 'Show flags' }).click();
      await expect.poll(() => json.getAttribute('aria-invalid')).toBe('true');
      await json.fill('{"targetingKey": "bob", "country": "NL"}');
      await page.getByRole('button', { name: 'Show flags' }).click();
      await expect
        .poll(() => page.getByRole('row', { name: /Banner/ }).textContent())
        .toContain('rule 1 (“Dutch shoppers”): country is NL');
      await expectAccessible(page, 'the user view at desktop width');
    },
    SLOW,
  );

  it(
    "a webhook's test event is sent now and its answer shown beside the button, with nothing in the delivery log",
    async () => {
      const receiver = new Receiver();
      await receiver.start();
      try {
        const created = await call('POST', '/v1/projects/feat/webhooks', {
          url: receiver.url,
          events: ['flag.*'],
          active: false,
        });
        receiver.secret = created.secret;
        const page = await signedIn('/projects/feat/settings/webhooks');
        const hook = page.getByRole('region', { name: `Webhook ${receiver.url}` });
        const send = hook.getByRole('button', { name: `Send test event to ${receiver.url}` });
        const report = hook.locator('output');
        await send.click();
        await expect
          .poll(() => report.textContent())
          .toMatch(/^Test delivered: the receiver answered 200 in \d+ ms\.$/);
        expect(receiver.received).toMatchObject([{ event: 'webhook.test', signatureValid: true }]);

        receiver.answer = () => 500;
        await send.click();
        await expect.poll(() => report.textContent()).toMatch(/^Test not delivered \(\d+ ms\): answered 500/);
        // Tests are not deliveries: the log stays empty.
        await hook.getByRole('button', { name: 'Show deliveries' }).click();
        await hook.getByText('Nothing sent yet.').waitFor();
        await expectAccessible(page, 'the webhooks page with a test report');
      } finally {
        await receiver.stop();
      }
    },
    SLOW,
  );

  it(
    "a flag's settings in two environments are compared in words and copied over, through the approval gate",
    async () => {
      const page = await signedIn('/projects/feat/flags/banner');
      const section = page.getByRole('region', { name: 'Compare environments' });
      await section.getByLabel('Compare').selectOption('production');
      await section.getByLabel('with').selectOption('development');
      await expect.poll(() => section.getByRole('status').textContent()).toMatch(/^\d+ settings differ/);
      const rules = section.getByRole('row', { name: /^Rules/ });
      expect(await rules.textContent()).toContain('rule 2 (“Beta testers”): in segment beta → on');
      expect(await rules.textContent()).toContain('differs');

      await section.getByRole('button', { name: 'Copy Production to Development' }).click();
      const dialog = page.getByRole('dialog', { name: "Copy Production's settings to Development?" });
      await dialog.getByRole('row', { name: /^Switch/ }).waitFor();
      expect(await dialog.textContent()).toContain('Applications in Development get these settings at once.');
      await dialog.getByRole('button', { name: 'Copy to Development' }).click();
      await waitForToast(page, "Copied Production's settings to Development.");
      await expect
        .poll(() => section.getByRole('status').textContent())
        .toBe('Production and Development have the same settings.');
      const copied = await call('GET', '/v1/projects/feat/flags/banner');
      expect(
        copied.environments.development.rules.map((r: { description: string }) => r.description),
      ).toEqual(['Dutch shoppers', 'Beta testers']);
      await expectAccessible(page, 'the flag page with environments compared');

      // An editor copying into Staging, which requires an approval, sends a change request instead.
      const eve = await signedIn('/projects/feat/flags/banner', 390, EDITOR);
      const compare = eve.getByRole('region', { name: 'Compare environments' });
      await compare.getByLabel('Compare').selectOption('production');
      await compare.getByLabel('with').selectOption('staging');
      await compare.getByRole('button', { name: 'Copy Production to Staging' }).click();
      const asked = eve.getByRole('dialog', { name: "Copy Production's settings to Staging?" });
      await asked.getByText('the copy is sent as a change request').waitFor();
      await expectAccessible(eve, 'the copy dialog at phone width');
      await asked.getByRole('button', { name: 'Send for approval' }).click();
      await waitForToast(eve, /Change request sent/);
      const after = await call('GET', '/v1/projects/feat/flags/banner');
      expect(after.environments.staging).toEqual(copied.environments.staging);
      const requests = await call('GET', '/v1/projects/feat/change-requests?status=open');
      expect(requests).toMatchObject([{ environment: 'staging', author: { name: 'Eve' } }]);
    },
    SLOW,
  );

  it(
    'two tabs save one flag: the second is asked in a focused dialog, keeps its edits until it chooses, then reloads the other version',
    async () => {
      const first = await signedIn('/projects/feat/flags/checkout');
      const second = await signedIn('/projects/feat/flags/checkout');
      for (const tab of [first, second])
        await tab.getByRole('heading', { level: 2, name: 'Targeting' }).waitFor();

      await first.getByRole('switch', { name: 'Serve Checkout in Development' }).click();
      await first.getByRole('button', { name: 'Save changes' }).click();
      await waitForToast(first, 'Saved Checkout.');

      const offVariant = second.getByLabel('When off, serve');
      const served = () => offVariant.locator('option:checked').textContent();
      await offVariant.selectOption({ label: 'on' });
      // Far down the page, where an alert at the top would be out of sight.
      await second.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await second.getByRole('button', { name: 'Save changes' }).click();
      const dialog = second.getByRole('dialog', { name: 'Someone else changed this flag' });
      await dialog.waitFor();
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      const box = await dialog.boundingBox();
      expect(box && box.y >= 0 && box.y + box.height <= 1000).toBe(true);
      expect(await dialog.textContent()).toContain('your changes were not saved');
      await expectAccessible(second);

      // Kept: the edit is still there, and the bar says why saving will not work and offers the way out.
      await dialog.getByRole('button', { name: 'Keep my edits' }).click();
      expect(await served()).toBe('on');
      const bar = second.getByRole('region', { name: 'Unsaved changes' });
      await bar.getByText('Someone else saved a newer version of this flag.').waitFor();
      await expectAccessible(second);
      await bar.getByRole('button', { name: 'Reload the other version' }).click();
      // Reloaded: the edit is gone, and the first tab's change is there.
      await expect.poll(served).toBe('off');
      await expect
        .poll(() =>
          second.getByRole('switch', { name: 'Serve Checkout in Development' }).getAttribute('aria-checked'),
        )
        .toBe('true');
      expect(await bar.count()).toBe(0);
    },
    SLOW,
  );

  it(
    'a segment saved elsewhere meanwhile is asked about in the same dialog as a flag, and the edits are kept until reload',
    async () => {
      const segment = await call('POST', '/v1/projects/feat/segments', {
        key: 'stale-segment',
        name: 'Stale segment',
      });
      const page = await signedIn('/projects/feat/segments/stale-segment');
      const description = page.getByLabel('Description');
      await description.waitFor();
      await call('PATCH', `/v1/segments/${segment.id}`, { description: 'saved elsewhere' });
      await description.fill('mine');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const dialog = page.getByRole('dialog', { name: 'Someone else changed this segment' });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('your changes were not saved');
      await expectAccessible(page);
      await dialog.getByRole('button', { name: 'Reload the other version' }).click();
      await expect.poll(() => description.inputValue()).toBe('saved elsewhere');
      expect((await call('GET', '/v1/projects/feat/segments/stale-segment')).description).toBe(
        'saved elsewhere',
      );
    },
    SLOW,
  );

  it(
    'a stale page restoring a version or saving prerequisites is asked in the same dialog, and nothing is written',
    async () => {
      const flag = await call('POST', '/v1/projects/feat/flags', { key: 'stale-tab', name: 'Stale tab' });
      await call('PATCH', `/v1/flags/${flag.id}`, { description: 'first' });
      const page = await signedIn('/projects/feat/flags/stale-tab');
      const restore = page.getByRole('button', { name: 'Restore this version (1)' });
      await restore.waitFor();
      await call('PATCH', `/v1/flags/${flag.id}`, { description: 'saved elsewhere' });
      const dialog = page.getByRole('dialog', { name: 'Someone else changed this flag' });

      await restore.click();
      await dialog.waitFor();
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      expect(await dialog.textContent()).toContain('nothing was changed');
      await dialog.getByRole('button', { name: 'Not now' }).click();

      const prerequisites = page.getByRole('region', { name: /^Prerequisites in / });
      await prerequisites.getByRole('button', { name: 'Add prerequisite' }).click();
      await chooseFlag(prerequisites, 'banner');
      await prerequisites.getByRole('checkbox', { name: 'on', exact: true }).check();
      await prerequisites.getByRole('button', { name: 'Save prerequisites' }).click();
      await dialog.waitFor();
      // The sections show no problem of their own: the dialog is the one answer to a 412.
      expect(await page.getByRole('region', { name: 'History' }).getByRole('alert').count()).toBe(0);
      expect(await prerequisites.getByRole('alert').count()).toBe(0);
      await expectAccessible(page);

      await dialog.getByRole('button', { name: 'Reload the other version' }).click();
      await expect.poll(() => page.getByRole('button', { name: 'Restore this version (2)' }).count()).toBe(1);
      const stored = await call('GET', '/v1/projects/feat/flags/stale-tab');
      expect(stored.version).toBe(3);
      expect(stored.description).toBe('saved elsewhere');
      expect(
        Object.values(stored.environments).map((e) => (e as { prerequisites?: unknown }).prerequisites ?? []),
      ).toEqual(Object.keys(stored.environments).map(() => []));
    },
    SLOW,
  );

  it(
    'prerequisites saved where approvals are needed become a change request that the page lists at once',
    async () => {
      await call('POST', '/v1/projects/feat/flags', {
        key: 'gated-prerequisite',
        name: 'Gated prerequisite',
      });
      const page = await signedIn('/projects/feat/flags/gated-prerequisite', 1280, EDITOR);
      await page.getByRole('tab', { name: /Staging/ }).click();
      const prerequisites = page.getByRole('region', { name: 'Prerequisites in Staging' });
      await prerequisites.getByRole('button', { name: 'Add prerequisite' }).click();
      await chooseFlag(prerequisites, 'banner');
      await prerequisites.getByRole('checkbox', { name: 'on', exact: true }).check();
      await prerequisites.getByRole('button', { name: 'Save prerequisites' }).click();

      await waitForToast(page, 'Change request sent: it needs 1 approval before it is applied.');
      const pending = page.getByRole('region', { name: 'Pending change requests' });
      await pending.waitFor();
      expect(await pending.textContent()).toContain('banner');
      const stored = await call('GET', '/v1/projects/feat/flags/gated-prerequisite');
      expect(stored.environments.staging.prerequisites ?? []).toEqual([]);
    },
    SLOW,
  );
});
