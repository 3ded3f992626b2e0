import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** FLAGSTAFF_SCREENSHOTS=1 saves pictures of the dashboard to docs/screenshots/, which the README shows. */
const FOLDER = process.env.FLAGSTAFF_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
  : undefined;

/** Saves `name`.png with `take` (a page's or an element's screenshot) when asked to; else does nothing. */
export async function saveScreenshot(name: string, take: (path: string) => Promise<unknown>): Promise<void> {
  if (FOLDER === undefined) return;
  mkdirSync(FOLDER, { recursive: true });
  await take(`${FOLDER}${name}.png`);
}
