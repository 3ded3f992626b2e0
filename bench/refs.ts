import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MAX_FILE_BYTES, scanRepository, trackedFiles } from '../src/cli/code-references/scan.ts';
import { isMain, report } from './child.ts';
import type { Row } from './stats.ts';

// `flagstaff refs` (issue 39): this repository's tracked files and its node_modules (about as
// much code as a large application's repository), scanned for 10,000 flag keys. The baseline is
// reading the same files without looking for anything, measured in the same run: the scan's
// share is what matching costs over the disk.

const KEYS = 10_000;
const ROOT = join(import.meta.dirname, '..');

/** Every file under `dir`, relative to ROOT, following the node_modules symlink but no other. */
function walk(dir: string, into: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, into);
    else if (entry.isFile()) into.push(relative(ROOT, path));
  }
}

/** Keys shaped like a team's: some of them this code really names (the checkout fixtures'). */
function keys(): Set<string> {
  const found = new Set(['new-checkout', 'dark-mode', 'pricing.v2']);
  for (let n = 0; found.size < KEYS; n++) found.add(`team-${n % 37}.feature-${n}`);
  return found;
}

function readOnly(paths: readonly string[]): number {
  let bytes = 0;
  for (const path of paths) {
    const file = join(ROOT, path);
    if (statSync(file).size <= MAX_FILE_BYTES) bytes += readFileSync(file).length;
  }
  return bytes;
}

export async function rows(): Promise<Row[]> {
  const paths = trackedFiles(ROOT);
  walk(join(ROOT, 'node_modules'), paths);
  const wanted = keys();
  readOnly(paths); // the page cache warm for both
  const readStarted = performance.now();
  readOnly(paths);
  const readSeconds = (performance.now() - readStarted) / 1000;
  const started = performance.now();
  const { references, stats } = scanRepository(ROOT, wanted, paths);
  const seconds = (performance.now() - started) / 1000;
  const megabytes = stats.bytes / 1024 / 1024;
  const filesPerSecond = stats.files / seconds;
  return [
    {
      section: 'refs',
      figure: `flagstaff refs: ${stats.files.toLocaleString('en-US')} files (${megabytes.toFixed(0)} MB) against ${KEYS.toLocaleString('en-US')} keys`,
      value: `${Math.round(filesPerSecond).toLocaleString('en-US')} files/s, ${(megabytes / seconds).toFixed(0)} MB/s`,
      baseline: `${(megabytes / readSeconds).toFixed(0)} MB/s (reading only)`,
      ratio: readSeconds / seconds,
      target: '',
    },
    {
      section: 'refs',
      figure: 'references found; files skipped (too large, binary)',
      value: `${references.length.toLocaleString('en-US')}; ${stats.skippedLarge}, ${stats.skippedBinary}`,
      baseline: '',
      ratio: Number.NaN,
      target: '',
    },
  ];
}

if (isMain(import.meta.url)) report(await rows());
