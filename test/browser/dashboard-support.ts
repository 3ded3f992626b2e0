import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { initialFlagEnvironment } from '../../src/domain/flag.ts';
import { newId } from '../../src/domain/ids.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  type DashboardServer,
  startDashboardServer,
} from '../dashboard/support.ts';
import { buildFlag, inEnvironments } from '../support/builders.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { failOnPageErrors } from '../support/page-errors.ts';

export const CHROMIUM = '/usr/bin/chromium';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    // biome-ignore lint/suspicious/noExplicitAny: axe is the script just evaluated
    async () => (await (window as any).axe.run(document, { resultTypes: ['violations'] })).violations,
  )) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** How far the page is wider than the window (0 or less: nothing is cut off sideways). */
export const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/**
 * Words in table cells that the layout breaks mid-word ("de/vel/opm/ent"): each is a word of
 * the cell's text whose letters land on more than one line (a break after a hyphen or slash,
 * where a person would break it too, is fine). Long values meant to wrap anywhere
 * (URLs, hashes, JSON) are marked `.breaks-anywhere` and left out.
 */
export const wordsBrokenInCells = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll('main td, main th')) {
      if (cell.closest('.breaks-anywhere') !== null) continue;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/[^\s/-]{2,}/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(
            [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)),
          );
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });

/** Tables whose content runs past their box, unseen unless scrolled: their headings. */
export const tablesCutOff = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll('main .table-wrap')]
      .filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1)
      .map((wrap) => wrap.querySelector('caption')?.textContent ?? 'a table'),
  );

/** Below this width a page is laid out for a phone. */
const PHONE_WIDTH = 600;

/**
 * What every page owes everyone: no serious or critical axe violation, and on a phone nothing
 * cut off sideways, no table running past its box, and no word in a table broken mid-word. `what` names the page in a failure.
 */
export async function expectAccessible(page: Page, what?: string): Promise<void> {
  expect(await seriousViolations(page), what).toEqual([]);
  if ((page.viewportSize()?.width ?? 1280) < PHONE_WIDTH) {
    expect(await sidewaysOverflow(page), what).toBeLessThanOrEqual(0);
    expect(await wordsBrokenInCells(page), `${what ?? 'the page'}: words broken mid-word`).toEqual([]);
    expect(await tablesCutOff(page), `${what ?? 'the page'}: tables cut off at the side`).toEqual([]);
  }
}

/** Follows the link `name` of the dashboard's main navigation, as a person moves between its pages. */
export const followMainNavigation = (page: Page, name: string): Promise<void> =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

/**
 * Chooses the item `key` in the picker of a project's flags or segments labelled `label`
 * (pages/project-list-picker.tsx), within `scope`, as a person would: types its key and takes its
 * choice, "Name (key)", once the search offers it. An item already chosen is left so.
 */
async function chooseByKey(scope: Page | Locator, label: string, key: string): Promise<void> {
  const field = scope.getByRole('combobox', { name: label, exact: true });
  if ((await field.inputValue()) === key) return;
  await field.fill(key);
  await scope.getByRole('option', { name: `(${key})` }).click();
}

/** Chooses the flag `key` in the flag picker labelled `label` (pages/flag-picker.tsx). */
export const chooseFlag = (scope: Page | Locator, key: string, label = 'Flag'): Promise<void> =>
  chooseByKey(scope, label, key);

/** The segment picker's label in a flag's targeting rule (pages/flag/rule-editor.tsx). */
export const RULE_SEGMENTS = 'If the user is in every one of these segments';

/** Chooses the segment `key` in a targeting rule's segment picker, within the rule `scope`; "Add segment" adds it. */
export const chooseRuleSegment = (scope: Locator, key: string): Promise<void> =>
  chooseByKey(scope, RULE_SEGMENTS, key);

/** Waits for the toast that says `text`. */
export const waitForToast = (page: Page, text: string | RegExp): Promise<void> =>
  page.locator('.toast', { hasText: text }).first().waitFor();

const CONFIG = fileURLToPath(new URL('../../dashboard/vite.config.ts', import.meta.url));

/** A describe that runs only with Chromium installed, and says how to run it when skipped. */
export function describeInChromium(title: string, fn: () => void): void {
  if (existsSync(CHROMIUM)) describe(title, fn);
  else describe.skip(`${title} — skipped: no Chromium at ${CHROMIUM} (apt-get install chromium to run)`, fn);
}

/** Headless Chromium, quiet: no GPU, no QUIC, none of the background calls home a test could wait on. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

let built: Promise<string> | undefined;

/** The dashboard built from the current sources into a directory of this test run. */
export function buildDashboard(): Promise<string> {
  built ??= (async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'flagstaff-dashboard-'));
    // The build users get (`npm run build`): Vite takes NODE_ENV from the environment, and under
    // Vitest it is 'test', which would ship React's slower development build to the browser.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({ configFile: CONFIG, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    } finally {
      process.env.NODE_ENV = nodeEnv;
    }
    return outDir;
  })();
  return built;
}

/**
 * A page of `ui` at `path`, `width` wide, signed in as the admin, its script errors given to
 * `watch` (failOnPageErrors). Patient: each test opens pages on a machine shared with other runs.
 */
export async function openSignedIn(
  ui: DashboardBrowser,
  watch: (page: Page) => void,
  path: string,
  width = 1280,
): Promise<Page> {
  const { page } = await ui.newPage({ width, height: 900 });
  watch(page);
  page.setDefaultTimeout(20_000);
  await ui.signIn(page);
  await page.goto(`${ui.server.url}${path}`);
  return page;
}

/** The admin's API call of a test's setup (callAsAdmin). */
// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
type AdminCall = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * Call in a describe of a large organisation's or project's browser tests: a dashboard started
 * before them and filled by `seed` (through its store, or the `call`s this returns), closed after
 * them. Gives the admin's API calls (`call`), the server, and signed-in pages (`open`,
 * openSignedIn) whose script errors fail the test.
 */
export function seededDashboard(seed: (server: DashboardServer) => Promise<void>) {
  const ui = dashboardAroundTests({});
  const watch = failOnPageErrors();
  beforeAll(() => seed(ui.server), 120_000);
  const call: AdminCall = ui.admin;
  return {
    call,
    server: () => ui.server,
    open: (path: string, width?: number) => openSignedIn(ui, watch, path, width),
  };
}

type ServerOptions = Pick<
  Parameters<typeof startDashboardServer>[0] & object,
  'signIn' | 'webhooksAllowPrivate'
>;

/** How a suite's dashboard starts: the server's options, and the project its tests work in, if one. */
export interface DashboardSuiteOptions extends ServerOptions {
  readonly project?: { readonly key: string; readonly name: string };
}

/**
 * A describe of dashboard page tests in Chromium (describeInChromium): a dashboard started before
 * its tests, with the suite's `project` made (`options`), and closed after them. `body` gets the dashboard as
 * `ui`, reachable once the tests run; a beforeAll in `body` seeds it, as hooks run in their order.
 */
export function describeDashboard(
  title: string,
  options: DashboardSuiteOptions,
  body: (ui: DashboardBrowser) => void,
): void {
  describeInChromium(title, () => body(dashboardAroundTests(options)));
}

/**
 * A dashboard started before the tests of the describe this is called in and closed after them;
 * its members reach the started one, so a suite calls `ui.server`, `ui.newPage`… in its tests.
 */
function dashboardAroundTests({ project, ...serverOptions }: DashboardSuiteOptions): DashboardBrowser {
  let started: DashboardBrowser | undefined;
  const ui = (): DashboardBrowser => {
    if (started === undefined) throw new Error('The dashboard starts before the tests (beforeAll).');
    return started;
  };
  beforeAll(async () => {
    started = await startDashboardBrowser(serverOptions);
    if (project !== undefined) await started.admin('POST', '/v1/projects', project);
  }, 120_000);
  afterAll(() => started?.close());
  return {
    get server() {
      return ui().server;
    },
    get browser() {
      return ui().browser;
    },
    newPage: (options) => ui().newPage(options),
    signIn: (page, email, password) => ui().signIn(page, email, password),
    admin: (method, path, body) => ui().admin(method, path, body),
    close: () => ui().close(),
  };
}

export interface DashboardBrowser {
  readonly server: DashboardServer;
  readonly browser: Browser;
  /** A page in a context of its own; `errors` collects uncaught errors of the page's scripts. */
  newPage(options?: {
    width?: number;
    height?: number;
    bypassCSP?: boolean;
  }): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  /** Signs in through the sign-in page, as a person would. */
  signIn(page: Page, email?: string, password?: string): Promise<void>;
  /** Calls the API with the admin key for a test's setup; anything but a 2xx throws, naming the call. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  admin(method: string, path: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** A server with the freshly built dashboard and a first admin account, and Chromium to drive it. */
export async function startDashboardBrowser(options: ServerOptions = {}): Promise<DashboardBrowser> {
  const dashboardRoot = await buildDashboard();
  const server = await startDashboardServer({ dashboardRoot, ...options });
  const browser = await launchChromium();
  return {
    server,
    browser,
    async newPage({ width = 1280, height = 800, bypassCSP = false } = {}) {
      const context = await browser.newContext({ viewport: { width, height }, bypassCSP });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      return { page, context, errors };
    },
    async signIn(page, email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
      await page.goto(`${server.url}/`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    admin: (method, path, body) => callAsAdmin(server, method, path, body),
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * Puts a boolean flag, off in development and production, in the default project through the
 * store, as if made `daysAgo` days ago (the API dates a flag now): a stale flag, or one with days
 * of insights. Answers its id.
 */
export async function insertFlagMadeAgo(
  { store }: DashboardServer,
  { key, name, daysAgo }: { key: string; name: string; daysAgo: number },
): Promise<string> {
  const project = await store.findProject('default');
  if (project === undefined) throw new Error('no default project');
  const at = new Date(Date.now() - daysAgo * DAY).toISOString();
  const id = newId('flg');
  await store.insertFlag(
    buildFlag(key, {
      id,
      projectId: project.id,
      name,
      createdAt: at,
      updatedAt: at,
      environments: inEnvironments(['development', 'production'], initialFlagEnvironment('boolean', [])),
    }),
  );
  await store.bumpRevision(project.id);
  return id;
}
