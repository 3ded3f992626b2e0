import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, inviteAndJoin } from '../dashboard/support.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { failOnPageErrors } from '../support/page-errors.ts';
import {
  type DashboardSuiteOptions,
  describeDashboard,
  expectAccessible,
  waitForToast,
} from './dashboard-support.ts';

// Approvals as admins govern them and others meet them in the dashboard: the Environments page,
// the change-request list, and restoring a version (docs/decisions/1711).

const PASSWORD = 'a long enough password';
/** Each test opens several pages on a loaded machine. */
const SLOW = 120_000;

/** The dashboard the tests drive, and the project they work in. */
const SUITE: DashboardSuiteOptions = { project: { key: 'gov', name: 'Governed' } };

describeDashboard('governance in Chromium: approvals, environments, requests and restore', SUITE, (ui) => {
  const watch = failOnPageErrors();
  const call = (method: string, path: string, body?: unknown) => callAsAdmin(ui.server, method, path, body);
  const environment = async (key: string) =>
    (await call('GET', '/v1/projects/gov/environments')).find((e: { key: string }) => e.key === key);
  const flag = (key = 'banner') => call('GET', `/v1/projects/gov/flags/${key}`);

  /** An account of `role` in the project, joined through an invitation as a person would. */
  async function account(email: string, name: string, role: 'editor' | 'viewer'): Promise<void> {
    const { joined } = await inviteAndJoin(
      ui.server,
      await ui.server.signIn(),
      { email, role, project: 'gov' },
      { name, password: PASSWORD },
    );
    expect(joined.status).toBe(201);
  }

  /** A signed-in page at `path`; its script errors fail the test. */
  async function openAs(email: string, path: string, width = 1280): Promise<Page> {
    const opened = await ui.newPage({ width, height: width < 600 ? 844 : 1400 });
    watch(opened.page);
    // Shorter than the test's own time, so a failure names what it waited for.
    opened.page.setDefaultTimeout(20_000);
    await ui.signIn(opened.page, email, email === ADMIN_EMAIL ? ADMIN_PASSWORD : PASSWORD);
    await opened.page.goto(`${ui.server.url}${path}`);
    return opened.page;
  }

  /** No serious axe finding, at desktop and at phone width, and nothing cut off sideways on the phone. */
  async function cleanAtBothWidths(email: string, path: string, ready: (page: Page) => Promise<void>) {
    for (const width of [1280, 390]) {
      const page = await openAs(email, path, width);
      await ready(page);
      await expectAccessible(page, `${path} at ${width}`);
      await page.context().close();
    }
  }

  beforeAll(async () => {
    await call('POST', '/v1/projects/gov/flags', { key: 'banner', name: 'Banner' });
    await call('POST', '/v1/projects/gov/flags', { key: 'promo', name: 'Promo' });
    await call('PATCH', '/v1/projects/gov/environments/production', { requiredApprovals: 1 });
    await account('eve@example.com', 'Eve', 'editor');
    await account('ed@example.com', 'Ed', 'editor');
    await account('vic@example.com', 'Vic', 'viewer');
  }, 120_000);

  it(
    'an admin sets the approvals an environment requires, and a value out of range is shown beside its field',
    async () => {
      const page = await openAs(ADMIN_EMAIL, '/projects/gov/environments');
      const row = page.getByRole('row', { name: /Production/ });
      await row.getByRole('cell', { name: '1 approval' }).waitFor();
      await row.getByRole('button', { name: 'Edit Production' }).click();
      const form = page.getByRole('form', { name: 'Edit Production' });
      await form.getByLabel('Approvals required').fill('9');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => form.getByLabel('Approvals required').getAttribute('aria-invalid'))
        .toBe('true');
      expect((await environment('production')).requiredApprovals).toBe(1);

      await form.getByLabel('Approvals required').fill('2');
      await form.getByRole('button', { name: 'Save' }).click();
      await waitForToast(page, 'Environment saved.');
      await page
        .getByRole('row', { name: /Production/ })
        .getByRole('cell', { name: '2 approvals' })
        .waitFor();
      expect(await environment('production')).toMatchObject({ requiredApprovals: 2, protected: true });

      // Back to one, and development protected, from the same form.
      await page.getByRole('button', { name: 'Edit Production' }).click();
      await page.getByRole('form', { name: 'Edit Production' }).getByLabel('Approvals required').fill('1');
      await page.getByRole('form', { name: 'Edit Production' }).getByRole('button', { name: 'Save' }).click();
      await waitForToast(page, 'Environment saved.');
      expect((await environment('production')).requiredApprovals).toBe(1);

      await cleanAtBothWidths(ADMIN_EMAIL, '/projects/gov/environments', async (p) => {
        await p.getByRole('button', { name: 'Edit Production' }).click();
        await p.getByLabel('Approvals required').waitFor();
      });
    },
    SLOW,
  );

  it(
    'editors and viewers see protection and approvals but get no control of them and no Delete',
    async () => {
      const eve = await openAs('eve@example.com', '/projects/gov/environments');
      const row = eve.getByRole('row', { name: /Production/ });
      await row.getByRole('cell', { name: '1 approval' }).waitFor();
      await row.getByText('protected').waitFor();
      expect(await eve.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
      await row.getByRole('button', { name: 'Edit Production' }).click();
      const form = eve.getByRole('form', { name: 'Edit Production' });
      await form.getByLabel('Name').waitFor();
      expect(await form.getByLabel('Approvals required').count()).toBe(0);
      expect(await form.getByRole('checkbox').count()).toBe(0);
      // Renaming stays an editor's, and sends nothing of the governance fields.
      await form.getByLabel('Description').fill('Where customers are');
      await form.getByRole('button', { name: 'Save' }).click();
      await waitForToast(eve, 'Environment saved.');
      expect(await environment('production')).toMatchObject({
        description: 'Where customers are',
        requiredApprovals: 1,
        protected: true,
      });

      const vic = await openAs('vic@example.com', '/projects/gov/environments');
      await vic
        .getByRole('row', { name: /Production/ })
        .getByRole('cell', { name: '1 approval' })
        .waitFor();
      expect(await vic.getByRole('button', { name: /^(Edit|Delete)/ }).count()).toBe(0);
    },
    SLOW,
  );

  it(
    'deleting an environment says how many flags are on there, and waits for its key to be typed',
    async () => {
      await call('POST', '/v1/projects/gov/environments', { key: 'staging', name: 'Staging' });
      for (const key of ['banner', 'promo'])
        await call('PATCH', `/v1/projects/gov/flags/${key}?environment=staging`, { enabled: true });
      const page = await openAs(ADMIN_EMAIL, '/projects/gov/environments');
      await page.getByRole('button', { name: 'Delete Staging' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete the environment Staging?' });
      await dialog.getByText('2 flags are on in Staging now.').waitFor();
      const remove = dialog.getByRole('button', { name: 'Delete environment' });
      expect(await remove.isDisabled()).toBe(true);
      await dialog.getByLabel('Type staging to confirm').fill('stagin');
      await dialog.getByLabel('Type staging to confirm').press('Enter');
      expect(await remove.isDisabled()).toBe(true);
      await expectAccessible(page);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await environment('staging')).toBeDefined();

      await page.getByRole('button', { name: 'Delete Staging' }).click();
      await dialog.getByLabel('Type staging to confirm').fill('staging');
      await remove.click();
      await waitForToast(page, 'Environment Staging deleted.');
      expect(await environment('staging')).toBeUndefined();
    },
    SLOW,
  );

  it(
    "an editor's change to production says it is sent for approval, and the request list shows it styled and clean",
    async () => {
      const eve = await openAs('eve@example.com', '/projects/gov/flags/promo');
      await eve.getByRole('tab', { name: /Production/ }).click();
      await eve.getByRole('switch', { name: 'Serve Promo in Production', exact: true }).click();
      await eve.getByRole('button', { name: 'Save changes' }).click();
      const ask = eve.getByRole('dialog', { name: 'Send for approval: save Promo?' });
      await ask.getByText(/Production requires 1 approval.*not applied/).waitFor();
      await ask.getByRole('button', { name: 'Send for approval' }).click();
      await waitForToast(eve, /Change request sent/);
      expect((await flag('promo')).environments.production.enabled).toBe(false);

      const ready = async (page: Page) => {
        const card = page.getByRole('article', { name: 'Change request by Eve' });
        await card.getByRole('rowheader', { name: 'production: switch' }).waitFor();
      };
      const ed = await openAs('ed@example.com', '/projects/gov/change-requests');
      await ready(ed);
      const card = ed.getByRole('article', { name: 'Change request by Eve' });
      await card.getByText('open', { exact: true }).waitFor();
      // The kit's buttons, not the browser's bare ones.
      for (const name of ['Approve', 'Reject'])
        expect(await card.getByRole('button', { name }).getAttribute('class')).toMatch(/\bbtn\b/);
      expect(await card.getByRole('button', { name: 'Approve' }).getAttribute('class')).toMatch(
        /\bprimary\b/,
      );
      await cleanAtBothWidths('ed@example.com', '/projects/gov/change-requests', ready);
      await cleanAtBothWidths('ed@example.com', '/projects/gov/flags/promo', ready);

      await card.getByRole('button', { name: 'Approve' }).click();
      await waitForToast(ed, 'Applied.');
      expect((await flag('promo')).environments.production.enabled).toBe(true);
    },
    SLOW,
  );

  it(
    'a request to add a rule reads as the Compare panel words it, on a phone too, and the history names its author and approver',
    async () => {
      await call('POST', '/v1/projects/gov/segments', { key: 'dutch-users', name: 'Dutch users' });
      const ci = await call('POST', '/v1/projects/gov/api-keys', { name: 'CI pipeline', role: 'editor' });
      const asked = await fetch(`${ui.server.url}/v1/projects/gov/flags/banner?environment=production`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${ci.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          rules: [{ segments: ['dutch-users'], conditions: [], serve: { variant: 'on' } }],
        }),
      });
      expect(asked.status).toBe(202);

      const ed = await openAs('ed@example.com', '/projects/gov/change-requests', 390);
      const card = ed.getByRole('article', { name: 'Change request by CI pipeline' });
      await card.getByRole('rowheader', { name: 'production: rules' }).waitFor();
      const next = card.getByRole('cell', { name: /rule 1: in segment dutch-users → on/ });
      await next.waitFor();
      expect(await card.textContent()).not.toMatch(/rul_|"conditions"/);
      // Stacked under its label, the value has the card's width, not a third of it.
      expect((await next.boundingBox())?.width ?? 0).toBeGreaterThan(250);
      await expectAccessible(ed, 'a rule request at 390');
      await card.getByRole('button', { name: 'Approve' }).click();
      await waitForToast(ed, 'Applied.');

      await ed.goto(`${ui.server.url}/projects/gov/flags/banner`);
      const history = ed.getByRole('region', { name: 'History' });
      await history.getByText('asked by CI pipeline, approved by Ed').waitFor();
      await history.getByText('Asked for approval of a change').waitFor();
      await ed.context().close();
    },
    SLOW,
  );

  it(
    'an editor reads the flag’s history, and Restore asks first, naming production; cancelled, nothing is sent',
    async () => {
      await call('PATCH', '/v1/projects/gov/flags/banner?environment=production', { enabled: true });
      await call('PATCH', '/v1/projects/gov/flags/banner?environment=production', { enabled: false });
      const before = await flag();

      const eve = await openAs('eve@example.com', '/projects/gov/flags/banner');
      const history = eve.getByRole('region', { name: 'History' });
      await history.getByText('Switched on in Production').waitFor();
      const onVersion = before.version - 1;
      await history.getByRole('button', { name: `Restore this version (${onVersion})` }).click();
      const ask = eve.getByRole('dialog', { name: `Send for approval: restore version ${onVersion}?` });
      await ask.getByText(/Production requires 1 approval/).waitFor();
      await ask.getByRole('button', { name: 'Cancel' }).click();
      expect((await flag()).version).toBe(before.version);
      // Sent, it waits on the flag page as a request to restore that version.
      await history.getByRole('button', { name: `Restore this version (${onVersion})` }).click();
      await ask.getByRole('button', { name: 'Send for approval' }).click();
      await waitForToast(eve, `Change request sent: restoring version ${onVersion} waits for approvals.`);
      await eve
        .getByRole('region', { name: 'Pending change requests' })
        .getByText(`asks to restore version ${onVersion} of`)
        .waitFor();
      expect((await flag()).version).toBe(before.version);

      const admin = await openAs(ADMIN_EMAIL, '/projects/gov/flags/banner');
      const adminHistory = admin.getByRole('region', { name: 'History' });
      await adminHistory.getByRole('button', { name: `Restore this version (${onVersion})` }).click();
      const confirm = admin.getByRole('dialog', { name: 'Change Production?' });
      await confirm.getByText(/applications there see the change at once/).waitFor();
      await expectAccessible(admin);
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect((await flag()).version).toBe(before.version);

      await adminHistory.getByRole('button', { name: `Restore this version (${onVersion})` }).click();
      await confirm.getByRole('button', { name: `Yes, restore version ${onVersion}` }).click();
      await waitForToast(admin, `Restored version ${onVersion}`);
      expect((await flag()).environments.production.enabled).toBe(true);
    },
    SLOW,
  );

  it(
    'a conflicted request shows its badge and reason in the list and on the flag page, with Approve and Apply disabled',
    async () => {
      await call('POST', '/v1/projects/gov/flags', { key: 'sale', name: 'Sale' });
      const eve = await ui.server.signIn('eve@example.com', PASSWORD);
      // Eve withdraws what she still has waiting, so the one conflicted request is this test's.
      for (const status of ['open', 'conflicted'])
        for (const waiting of await call('GET', `/v1/projects/gov/change-requests?status=${status}`))
          await ui.server.call('POST', `/v1/change-requests/${waiting.id}/withdraw`, {
            cookie: eve,
            body: {},
          });
      const asked = await ui.server.call('PATCH', '/v1/projects/gov/flags/sale?environment=production', {
        cookie: eve,
        body: { enabled: true },
      });
      expect(asked.status).toBe(202);
      // An admin writes the same field directly: the request is now based on a value that is gone.
      await call('PATCH', '/v1/projects/gov/flags/sale?environment=production', { enabled: true });
      const request = await call('GET', `/v1/change-requests/${asked.body.id}`);
      expect(request.status).toBe('conflicted');
      expect(request.conflict).toBeTruthy();

      const conflicted = (page: Page) =>
        page.getByRole('article', { name: 'Change request by Eve' }).filter({ hasText: 'Conflicted.' });
      let adminPage: Page | undefined;
      const check = async (page: Page) => {
        const card = conflicted(page);
        await card.getByText('conflicted', { exact: true }).waitFor();
        await card.getByText(request.conflict).waitFor();
        // An editor would approve it; an admin would also apply it: neither can now, and both say why.
        const names = page === adminPage ? ['Approve', 'Apply without approvals (admin)'] : ['Approve'];
        for (const name of names) {
          const button = card.getByRole('button', { name, exact: true });
          expect(await button.isDisabled()).toBe(true);
          const help = await button.getAttribute('aria-describedby');
          expect(await page.locator(`[id="${help}"]`).textContent()).toContain(
            'can no longer be approved or applied',
          );
        }
        expect(await card.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(false);
        await card.getByRole('rowheader', { name: 'production: switch' }).waitFor();
      };
      await cleanAtBothWidths('ed@example.com', '/projects/gov/change-requests', check);
      await cleanAtBothWidths('ed@example.com', '/projects/gov/flags/sale', check);

      adminPage = await openAs(ADMIN_EMAIL, '/projects/gov/change-requests');
      await check(adminPage);

      // Ed rejects it; it leaves what waits for a decision.
      const ed = await openAs('ed@example.com', '/projects/gov/change-requests');
      await check(ed);
      await conflicted(ed).getByRole('button', { name: 'Reject' }).click();
      await waitForToast(ed, 'Rejected.');
      expect((await call('GET', `/v1/change-requests/${asked.body.id}`)).status).toBe('rejected');
    },
    SLOW,
  );
});
