import { expect, it } from 'vitest';
import { manySegmentKey, storeManySegments } from '../support/many-flags.ts';
import {
  chooseRuleSegment,
  describeInChromium,
  expectAccessible,
  RULE_SEGMENTS,
  seededDashboard,
  waitForToast,
} from './dashboard-support.ts';

// A project of more segments than the segment list's largest page (1,000): a rule's segment is
// found by searching, and the segments page searches and pages them (docs/decisions/1844).

const SEGMENTS = 1_100;
/** Each test opens pages on a machine shared with other runs. */
const SLOW = 60_000;
/** Past the first 1,000 keys. */
const FAR = manySegmentKey(1_050);

describeInChromium('choosing among 1,100 segments (Chromium)', () => {
  const { call, open: openPath } = seededDashboard(async (server) => {
    const project = await call('POST', '/v1/projects', { key: 'many', name: 'Many' });
    await storeManySegments(server.store, project.id, SEGMENTS);
    await call('POST', '/v1/projects/many/flags', { key: 'checkout', name: 'Checkout' });
  });

  /** A signed-in page at `path` of the project. */
  const open = (path: string, width?: number) => openPath(`/projects/many${path}`, width);

  /** The flag page with a new first rule, its segment search opened on `text`. */
  async function searchRuleSegments(text: string, width = 1280) {
    const page = await open('/flags/checkout', width);
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByRole('listitem', { name: 'Rule 1' });
    await rule.getByRole('combobox', { name: RULE_SEGMENTS }).fill(text);
    return { page, rule };
  }

  it(
    'adds a segment past the first thousand to a rule, which then offers it no more, and saves it',
    async () => {
      const { page, rule } = await searchRuleSegments('Segment 105');
      await rule.getByRole('option', { name: `Segment 1050 (${FAR})` }).waitFor();
      await chooseRuleSegment(rule, FAR);
      await rule.getByRole('button', { name: 'Add segment' }).click();
      const chips = rule.getByRole('list', { name: 'Chosen segments' });
      await expect.poll(() => chips.getByRole('listitem').allTextContents()).toEqual([`${FAR}×`]);

      await rule.getByRole('combobox', { name: RULE_SEGMENTS }).fill(FAR);
      await rule.getByText('No segment matches.').waitFor();
      await rule.getByLabel('Variant', { exact: true }).selectOption('on');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await waitForToast(page, 'Saved Checkout.');
      const flag = await call('GET', '/v1/projects/many/flags/checkout');
      expect(flag.environments.development.rules).toMatchObject([
        { segments: [FAR], serve: { variant: 'on' } },
      ]);
    },
    SLOW,
  );

  it(
    'lists every segment a page at a time, finds one past the first thousand by searching, and opens it',
    async () => {
      const page = await open('/segments');
      const pages = page.getByRole('navigation', { name: 'Pages of segments' });
      await pages.getByText('1–100 of 1,100 segments').waitFor();

      await page.getByRole('searchbox', { name: 'Search' }).fill('segment 1050');
      await pages.getByText('1–1 of 1 segment').waitFor();
      expect(new URL(page.url()).searchParams.get('q')).toBe('segment 1050');
      await page.getByRole('link', { name: 'Segment 1050' }).click();
      await page.waitForURL(new RegExp(`/segments/${FAR}$`));
      await page.getByRole('heading', { level: 1, name: 'Segment 1050' }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'Who is in it' }).waitFor();
    },
    SLOW,
  );

  it(
    'searches segments accessibly at desktop and phone width, nothing cut off sideways on the phone',
    async () => {
      for (const width of [1280, 375]) {
        const { page, rule } = await searchRuleSegments('Segment 108', width);
        await rule.getByRole('option', { name: `(${manySegmentKey(1_080)})` }).waitFor();
        await expectAccessible(page, `a rule's segment picker at ${width}`);

        const list = await open('/segments?q=segment%20108', width);
        await list.getByRole('link', { name: 'Segment 1080' }).waitFor();
        await expectAccessible(list, `the searched segments page at ${width}`);
      }
    },
    SLOW,
  );
});
