import { afterAll, beforeAll, expect, it } from 'vitest';
import { initialFlagEnvironment } from '../../src/domain/flag.ts';
import { newId } from '../../src/domain/ids.ts';
import { buildFlag, inEnvironments } from '../support/builders.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import {
  type DashboardBrowser,
  describeInChromium,
  expectAccessible,
  startDashboardBrowser,
} from './dashboard-support.ts';

const DAY = 24 * 60 * 60 * 1000;
const WIDTHS = [1280, 390] as const;
const TEMPLATE = 'https://git.example/acme/shop/blob/{branch}/{path}#L{line}';

/**
 * Issue 39 in the dashboard: a flag's code references with links, what a stale flag without any
 * is told ("safe to remove"), the warning before deleting an archived flag code still reads, and
 * the Slack webhook form; each axe clean on a desktop and on a phone.
 */
describeInChromium('code references and Slack webhooks in the dashboard (Chromium)', () => {
  let ui: DashboardBrowser;
  const open = async (path: string, width: number) => {
    const { page } = await ui.newPage({ width, height: 900 });
    page.setDefaultTimeout(20_000);
    await ui.signIn(page);
    await page.goto(`${ui.server.url}${path}`);
    return page;
  };

  beforeAll(async () => {
    ui = await startDashboardBrowser();
    const call = (method: string, path: string, body?: unknown) => callAsAdmin(ui.server, method, path, body);
    const { store } = ui.server;
    const project = await store.findProject('default');
    if (project === undefined) throw new Error('no default project');
    // Made 60 days ago and never evaluated: stale.
    for (const [key, name] of [
      ['legacy-banner', 'Legacy banner'],
      ['old-promo', 'Old promo'],
    ] as const) {
      const at = new Date(Date.now() - 60 * DAY).toISOString();
      await store.insertFlag(
        buildFlag(key, {
          id: newId('flg'),
          projectId: project.id,
          name,
          createdAt: at,
          updatedAt: at,
          environments: inEnvironments(['development', 'production'], initialFlagEnvironment('boolean', [])),
        }),
      );
    }
    await store.bumpRevision(project.id);
    const promo = await call('GET', '/v1/projects/default/flags/old-promo');
    await call('PATCH', `/v1/flags/${promo.id}`, { archived: true });
    await call('PUT', '/v1/projects/default/code-references/acme%2Fshop', {
      branch: 'main',
      urlTemplate: TEMPLATE,
      references: [
        {
          flag: 'old-promo',
          path: 'src/checkout/promotions-and-discounts.ts',
          line: 42,
          context: [
            'export function promo(user) {',
            "  if (client.getBooleanValue('old-promo', false)) {",
            '    return 10;',
          ],
        },
        {
          flag: 'old-promo',
          path: 'deploy/flags.yaml',
          line: 3,
          context: ['defaults:', '  old-promo: true'],
        },
      ],
    });
  }, 120_000);
  afterAll(() => ui?.close());

  for (const width of WIDTHS) {
    it(`${width} px: a stale flag with no code references is safe to remove`, {
      timeout: 60_000,
    }, async () => {
      const page = await open('/projects/default/flags?stale=true', width);
      await page.getByText('no code references: safe to remove').first().waitFor();
      await expectAccessible(page, `stale flags at ${width} px`);
    });

    it(`${width} px: the flag page lists its code references with links, and warns before deleting it`, {
      timeout: 60_000,
    }, async () => {
      const page = await open('/projects/default/flags/old-promo', width);
      const section = page.getByRole('region', { name: 'Code references' });
      const link = section.getByRole('link', { name: 'src/checkout/promotions-and-discounts.ts:42' });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(
        'https://git.example/acme/shop/blob/main/src/checkout/promotions-and-discounts.ts#L42',
      );
      await section.getByText('This flag is archived, but code still reads it in 2 places').waitFor();
      await expectAccessible(page, `code references at ${width} px`);
      await page.getByRole('button', { name: 'Delete' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText(/Code still reads old-promo in 2 places/).waitFor();
      await expectAccessible(page, `delete warning at ${width} px`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it(`${width} px: a flag no code names says so`, { timeout: 60_000 }, async () => {
      const page = await open('/projects/default/flags/legacy-banner', width);
      await page
        .getByRole('region', { name: 'Code references' })
        .getByText(/No code references: safe to remove/)
        .waitFor();
      await expectAccessible(page, `no references at ${width} px`);
    });

    it(`${width} px: the webhook form chooses the Slack format`, { timeout: 60_000 }, async () => {
      const page = await open('/projects/default/settings/webhooks', width);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByLabel('Format').selectOption('slack');
      await page.getByText('The Slack incoming webhook URL').waitFor();
      await expectAccessible(page, `Slack webhook form at ${width} px`);
      await page.getByLabel('URL').fill(`https://203.0.113.10/services/T0/B${width}`);
      await page.getByRole('button', { name: 'Add webhook' }).last().click();
      const webhook = page.getByRole('region', {
        name: `Webhook https://203.0.113.10/services/T0/B${width}`,
      });
      await webhook.getByText(/Slack messages/).waitFor();
      await webhook.getByRole('button', { name: /Send test message/ }).waitFor();
      await expectAccessible(page, `Slack webhook at ${width} px`);
    });
  }
});
