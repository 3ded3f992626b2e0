import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completeLockfile } from '../../scripts/complete-lockfile.ts';

const committed = readFileSync(join(import.meta.dirname, '../../package-lock.json'), 'utf8');

describe('package-lock.json (a fresh clone stays clean)', () => {
  it('is what scripts/complete-lockfile.ts makes of npm install’s lock, byte for byte', () => {
    // What npm install writes on these machines: no lock entry for Biome's other platforms.
    const lock = JSON.parse(committed);
    for (const path of Object.keys(lock.packages)) {
      if (path.startsWith('node_modules/@biomejs/cli-') && lock.packages[path].integrity === undefined) {
        delete lock.packages[path];
      }
    }
    const completed = completeLockfile(`${JSON.stringify(lock, null, 2)}\n`);
    expect(completed.added).toBeGreaterThan(0);
    expect(completed.text).toBe(committed);
  });

  it('changes nothing when run again', () => {
    expect(completeLockfile(committed)).toEqual({ text: committed, added: 0 });
  });
});

describe('install scripts (npm install prints no warning)', () => {
  it('every locked package with an install script is allowed or denied by name in allowScripts', () => {
    const lock = JSON.parse(committed) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts).toContain('node');
    const unreviewed = withScripts.filter((name) => typeof manifest.allowScripts?.[name] !== 'boolean');
    expect(unreviewed).toEqual([]);
  });
});
