import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

/** Link targets that are files (not web addresses, not anchors in the same page). */
function localLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
  return targets.filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'));
}

describe('documentation links', () => {
  it.each(DOCUMENTS)('%s links only files in the repository', (document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    const broken = localLinks(text)
      .map((target) => join(dirname(join(ROOT, document)), target.split('#')[0] as string))
      .filter((path) => relative(ROOT, path).startsWith('..') || !existsSync(path))
      .map((path) => relative(ROOT, path));
    expect(broken).toEqual([]);
    // Files beside the checkout (../shared/…) are not in a clone.
    expect(text).not.toMatch(/\.\.\/shared\//);
  });
});
