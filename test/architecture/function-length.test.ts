import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Files split into functions with one job each stay split (docs/architecture.md: small modules
 * with one job): no top-level function of these files grows past a screenful again. A file joins
 * the list once its long functions are split.
 */
const SPLIT = [
  'dashboard/src/pages/flag/targeting-section.tsx',
  'dashboard/src/pages/members.tsx',
  'dashboard/src/pages/flags.tsx',
  'dashboard/src/pages/audit-log.tsx',
  'dashboard/src/kit/resource-table.tsx',
  // The composition root and the ways into admission (decision 1860).
  'src/main.ts',
  'src/http/build-app.ts',
  'src/http/plugins/guard.ts',
  'src/openfeature/flagd-sync-server.ts',
  'src/access/admission.ts',
  // The SQL adapters of the older storage roles (flag-queries.ts still has one long function).
  ...[
    'account-queries',
    'api-key-queries',
    'audit-queries',
    'columns-contain',
    'group-queries',
    'pending-change-queries',
    'project-queries',
    'rows',
    'segment-queries',
    'sql-context',
    'versioned-rows',
    'webhook-queries',
  ].map((role) => `src/storage/sql/${role}.ts`),
];
const ROOT = join(import.meta.dirname, '../..');

/**
 * Folders whose every file is split, and stays so (a file added to one joins it). Older parts only:
 * the parts being built this round (experiments, release plans, the edge, MCP) join when they land.
 */
const SPLIT_FOLDERS = [
  'src/cli',
  'src/evaluation',
  'src/flagd',
  'src/http/plugins',
  'src/http/scim',
  'src/openfeature/flagd',
  'src/openfeature/ofrep',
  'src/plane',
  'src/services/access',
  'src/services/core',
  'src/services/projects',
  'src/services/serving',
  'src/storage/backup',
  'src/storage/change-feed',
  'src/webhooks',
  'dashboard/src/pages/flag-list',
];
const MOST_LINES = 70;

/** The source files directly in a folder (its subfolders are listed on their own). */
const sourcesIn = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => `${folder}/${entry.name}`);

const START = /^(?:export )?(?:async )?(?:function\*? (\w+)|const (\w+)\s*=)/;
const END = /^[}\])][;,)]*$/;

/** Each top-level function or constant of a source text: its name and how many lines it spans. */
function topLevelLengths(text: string): { name: string; lines: number }[] {
  const lines = text.split('\n');
  const found: { name: string; lines: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = START.exec(lines[i] ?? '');
    if (start === null) continue;
    let end = i;
    // A one-line declaration ends where it starts; a block ends at the first line closing it at column 0.
    if (!/[;,]$/.test(lines[i] ?? '')) while (end + 1 < lines.length && !END.test(lines[end] ?? '')) end++;
    found.push({ name: start[1] ?? start[2] ?? '?', lines: end - i + 1 });
    i = end;
  }
  return found;
}

describe('split pages stay split', () => {
  it('measures what it should', () => {
    const text =
      'const a = 1;\nexport function B() {\n  return (\n    1\n  );\n}\nconst c = () => ({\n  d: 1,\n});\n';
    expect(topLevelLengths(text)).toEqual([
      { name: 'a', lines: 1 },
      { name: 'B', lines: 5 },
      { name: 'c', lines: 3 },
    ]);
  });

  for (const file of SPLIT) {
    it(`${file}: no function longer than ${MOST_LINES} lines`, () => {
      const lengths = topLevelLengths(readFileSync(join(ROOT, file), 'utf8'));
      expect(lengths.length).toBeGreaterThan(0);
      expect(lengths.filter((f) => f.lines > MOST_LINES)).toEqual([]);
    });
  }

  // A folder's file may hold no top-level function at all (a class, types): then there is nothing to hold.
  for (const file of SPLIT_FOLDERS.flatMap(sourcesIn)) {
    it(`${file} (a split folder's): no function longer than ${MOST_LINES} lines`, () => {
      const lengths = topLevelLengths(readFileSync(join(ROOT, file), 'utf8'));
      expect(lengths.filter((f) => f.lines > MOST_LINES)).toEqual([]);
    });
  }
});
