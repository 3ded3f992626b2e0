import { expect, it } from 'vitest';
import { buildFlagEnvironment, inEnvironments } from '../support/builders.ts';
import { manyFlagKey, storeManyFlags } from '../support/many-flags.ts';
import { WITH_STAGING } from '../support/requests.ts';
import {
  chooseFlag,
  describeInChromium,
  expectAccessible,
  seededDashboard,
  waitForToast,
} from './dashboard-support.ts';

// Choosing a flag among more than the flag list's largest page (1,000): the playground's flag and a
// prerequisite's are found by searching (docs/decisions/1842), and deleting an environment counts
// its flags that are on with one request (docs/decisions/1843).

const FLAGS = 1_200;
/** Each test opens pages on a machine shared with other runs. */
const SLOW = 60_000;
const keyOf = manyFlagKey;
/** Every seventh flag is on in staging: 0, 7, … 1197. */
const ON_IN_STAGING = Math.floor((FLAGS - 1) / 7) + 1;
/** Past the first 1,000 keys: a flag on in staging, and an archived one. */
const FAR = keyOf(1_148);
const ARCHIVED = keyOf(1_199);

describeInChromium('choosing among 1,200 flags (Chromium)', () => {
  const { call, open: openPath } = seededDashboard(async (server) => {
    const project = await call('POST', '/v1/projects', {
      key: 'many',
      name: 'Many',
      environments: WITH_STAGING,
    });
    await storeManyFlags(server.store, project.id, FLAGS, (i) => ({
      archived: keyOf(i) === ARCHIVED,
      environments: {
        ...inEnvironments(
          WITH_STAGING.map((e) => e.key),
          buildFlagEnvironment({ enabled: false }),
        ),
        staging: buildFlagEnvironment({ enabled: i % 7 === 0 }),
      },
    }));
  });

  /** A signed-in page at `path` of the project. */
  const open = (path: string, width?: number) => openPath(`/projects/many${path}`, width);

  it(
    'evaluates in the playground a flag past the first thousand, chosen with the keyboard',
    async () => {
      const page = await open('/playground');
      const field = page.getByRole('combobox', { name: 'Flag', exact: true });
      // The first flag is chosen to begin with, as before.
      await expect.poll(() => field.inputValue()).toBe(keyOf(0));

      // Flag 114, then Flag 1140 … Flag 1149 in key order: the tenth down is Flag 1148.
      await field.fill('Flag 114');
      await page.getByRole('option', { name: `Flag 1148 (${FAR})` }).waitFor();
      for (let i = 0; i < 11; i++) await field.press('ArrowDown');
      await field.press('ArrowUp');
      const active = page
        .getByRole('listbox', { name: 'Matching flags' })
        .getByRole('option', { selected: true });
      expect(await active.textContent()).toBe(`Flag 1148 (${FAR})`);
      expect(await field.getAttribute('aria-activedescendant')).toBe(await active.getAttribute('id'));
      await field.press('Enter');
      expect(await field.inputValue()).toBe(FAR);
      expect(await field.getAttribute('aria-expanded')).toBe('false');

      await page.getByRole('combobox', { name: 'Environment' }).selectOption('staging');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      const result = page.getByRole('region', { name: 'Result' });
      await result.getByRole('link', { name: 'open the flag' }).waitFor();
      expect(await result.getByRole('link', { name: 'open the flag' }).getAttribute('href')).toBe(
        `/projects/many/flags/${FAR}`,
      );
      expect(await result.locator('.value').textContent()).toBe('true');
    },
    SLOW,
  );

  it(
    'adds a flag past the first thousand as a prerequisite, ticks its variant and saves it',
    async () => {
      const page = await open(`/flags/${keyOf(1)}`);
      const section = page.getByRole('region', { name: 'Prerequisites in Development' });
      await section.getByRole('button', { name: 'Add prerequisite' }).click();
      const field = section.getByRole('combobox', { name: 'Flag', exact: true });
      await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);

      // Neither the flag itself nor an archived flag is offered.
      await field.fill(keyOf(1));
      await section.getByText('No flag matches.').waitFor();
      await field.fill('flag-0119');
      await section.getByRole('option', { name: `(${keyOf(1_198)})` }).waitFor();
      expect(await section.getByRole('option').allTextContents()).not.toContain(`Flag 1199 (${ARCHIVED})`);
      expect(await section.getByRole('option').count()).toBe(9);

      await chooseFlag(section, FAR);
      await section.getByRole('checkbox', { name: 'on', exact: true }).check();
      await section.getByRole('button', { name: 'Save prerequisites' }).click();
      await waitForToast(page, 'Saved the prerequisites in Development.');
      const saved = await call('GET', `/v1/projects/many/flags/${keyOf(1)}`);
      expect(saved.environments.development.prerequisites).toEqual([{ flag: FAR, variants: ['on'] }]);

      // A second row offers neither the flag itself nor the first row's flag.
      await section.getByRole('button', { name: 'Add prerequisite' }).click();
      const second = section.getByRole('group', { name: 'Prerequisite', exact: true });
      await second.getByRole('combobox', { name: 'Flag', exact: true }).fill('flag-0114');
      await second.getByRole('option', { name: `(${keyOf(1_149)})` }).waitFor();
      expect(await second.getByRole('option').count()).toBe(9);
    },
    SLOW,
  );

  it(
    'counts the flags on in an environment before deleting it, with one request',
    async () => {
      const page = await open('/environments');
      const lists: string[] = [];
      page.on('request', (request) => {
        if (/\/v1\/projects\/[^/]+\/flags\?/.test(request.url())) lists.push(request.url());
      });
      await page.getByRole('button', { name: 'Delete Staging' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete the environment Staging?' });
      await dialog.getByText(`${ON_IN_STAGING} flags are on in Staging now.`).waitFor();
      expect(lists).toHaveLength(1);
      await dialog.getByLabel('Type staging to confirm').fill('staging');
      await dialog.getByRole('button', { name: 'Delete environment' }).click();
      await waitForToast(page, 'Environment Staging deleted.');
      const environments = await call('GET', '/v1/projects/many/environments');
      expect(environments.map((e: { key: string }) => e.key)).toEqual(['development', 'production']);
    },
    SLOW,
  );

  it(
    'offers its matches accessibly at desktop and phone width, nothing cut off sideways on the phone',
    async () => {
      for (const width of [1280, 375]) {
        const playground = await open('/playground', width);
        await playground.getByRole('combobox', { name: 'Flag', exact: true }).fill('flag-011');
        await playground.getByRole('option', { name: `(${keyOf(1_100)})` }).waitFor();
        await expectAccessible(playground, `the playground's flag picker at ${width}`);

        const flag = await open(`/flags/${keyOf(2)}`, width);
        const section = flag.getByRole('region', { name: /^Prerequisites in / });
        await section.getByRole('button', { name: 'Add prerequisite' }).click();
        await section.getByRole('combobox', { name: 'Flag', exact: true }).fill('Flag 115');
        await section.getByRole('option', { name: `(${keyOf(1_150)})` }).waitFor();
        await expectAccessible(flag, `a prerequisite's flag picker at ${width}`);
      }
    },
    SLOW,
  );
});
