import { expect, it } from 'vitest';
import {
  describeInChromium,
  expectAccessible,
  insertFlagMadeAgo,
  seededDashboard,
} from './dashboard-support.ts';

const WIDTHS = [1280, 390] as const;
const TEMPLATE = 'https://git.example/acme/shop/blob/{branch}/{path}#L{line}';

/**
 * Issue 39 in the dashboard: a flag's code references with links, what a stale flag without any
 * is told ("safe to remove"), the warning before deleting an archived flag code still reads, and
 * the Slack webhook form; each axe clean on a desktop and on a phone.
 */
describeInChromium('code references and Slack webhooks in the dashboard (Chromium)', () => {
  const { call, open } = seededDashboard(async (server) => {
    // Made 60 days ago and never evaluated: stale.
    await insertFlagMadeAgo(server, { key: 'legacy-banner', name: 'Legacy banner', daysAgo: 60 });
    await insertFlagMadeAgo(server, { key: 'old-promo', name: 'Old promo', daysAgo: 60 });
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
  });

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
