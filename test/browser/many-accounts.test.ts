import { expect, it } from 'vitest';
import { manyAccountEmail, storeManyAccounts } from '../support/many-flags.ts';
import { describeInChromium, expectAccessible, seededDashboard, waitForToast } from './dashboard-support.ts';

// An organisation of more accounts than the account list's largest page (1,000), as single sign-on
// and SCIM provisioning make them: the Members page searches and pages them, and the audit log's
// "Who" is chosen by searching (docs/decisions/1846).

const ACCOUNTS = 1_050;
/** Each test opens pages on a machine shared with other runs. */
const SLOW = 60_000;
/** Past the first 1,000 accounts. */
const FAR = { name: 'Person 1030', email: manyAccountEmail(1_030) };

describeInChromium('managing 1,050 accounts (Chromium)', () => {
  let farId = '';
  const { call, open } = seededDashboard(async (server) => {
    await storeManyAccounts(server.store, ACCOUNTS);
    [{ id: farId }] = await call('GET', `/v1/accounts?q=${FAR.email}`);
    // The person acts once: they set their password from a reset link, which the log records as theirs.
    const reset = await call('POST', `/v1/accounts/${farId}/password-reset`);
    const used = await server.call('POST', '/v1/auth/reset-password', {
      body: { token: reset.token, password: 'a long enough password' },
    });
    expect(used.status).toBe(200);
  });

  /** The organisation audit log with its "Who" search opened on `text`. */
  async function searchWho(text: string, width = 1280) {
    const page = await open('/audit-log', width);
    await page.getByRole('combobox', { name: 'Who' }).fill(text);
    return page;
  }

  it(
    'finds an account past the first thousand on the Members page by searching, and changes its role',
    async () => {
      const page = await open('/settings/members');
      const pages = page.getByRole('navigation', { name: 'Pages of accounts' });
      await pages.getByText(/^1–100 of 1,05\d accounts$/).waitFor();

      await page.getByRole('searchbox', { name: 'Search' }).fill(FAR.name);
      await pages.getByText('1–1 of 1 account').waitFor();
      expect(new URL(page.url()).searchParams.get('q')).toBe(FAR.name);
      await page.getByRole('button', { name: `Change role of ${FAR.name}` }).click();
      const dialog = page.getByRole('dialog', { name: `Change the role of ${FAR.name}` });
      await dialog.getByLabel('Role').selectOption('editor');
      await dialog.getByRole('button', { name: 'Save role' }).click();
      await waitForToast(page, `${FAR.name} is now editor of all projects.`);
      const [saved] = await call('GET', `/v1/accounts?q=${FAR.email}`);
      expect(saved).toMatchObject({ id: farId, email: FAR.email, role: 'editor' });
    },
    SLOW,
  );

  it(
    'filters the organisation audit log by a person past the first thousand, chosen by searching',
    async () => {
      const page = await searchWho('person 1030');
      await page.getByRole('option', { name: `${FAR.name} (${FAR.email})` }).click();
      await page.waitForURL((url) => url.searchParams.get('actorId') === farId);
      const events = page.locator('.audit-event');
      await expect.poll(() => events.locator('code').allTextContents()).toEqual(['account.password_reset']);
      await expect.poll(() => page.getByRole('combobox', { name: 'Who' }).inputValue()).toBe(FAR.email);

      // Opened from its address, the field names the person by the name the log gives them.
      const reopened = await open(`/audit-log?actorId=${farId}`);
      await expect.poll(() => reopened.getByRole('combobox', { name: 'Who' }).inputValue()).toBe(FAR.name);
      await reopened.getByRole('button', { name: /^Anyone/ }).click();
      await reopened.waitForURL((url) => !url.searchParams.has('actorId'));
    },
    SLOW,
  );

  it(
    'searches accounts accessibly at desktop and phone width, nothing cut off sideways on the phone',
    async () => {
      for (const width of [1280, 375]) {
        const members = await open(`/settings/members?q=${encodeURIComponent(FAR.name)}`, width);
        await members.getByRole('button', { name: `Change role of ${FAR.name}` }).waitFor();
        await expectAccessible(members, `the searched Members page at ${width}`);

        const log = await searchWho('Person 103', width);
        await log.getByRole('option', { name: `(${FAR.email})` }).waitFor();
        await expectAccessible(log, `the audit log's "Who" picker at ${width}`);
      }
    },
    SLOW,
  );
});
