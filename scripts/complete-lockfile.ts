/**
 * The npm registry this project's machines reach serves only the Linux x64 builds of Biome,
 * so `npm install` leaves Biome's other platform packages out of package-lock.json and
 * `npm ci` then refuses the lock. This adds lock entries for them (optional, with their
 * os/cpu), which npm skips on other platforms. The entries are written in npm's own order
 * (packages sorted by path, fields as npm writes them), so a later `npm install` leaves the
 * file byte for byte as it is and a fresh clone stays clean. Run after changing dependencies:
 *   node scripts/complete-lockfile.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages: Record<string, Record<string, unknown>> = lock.packages;
const biome = packages['node_modules/@biomejs/biome'];
const optional = (biome?.optionalDependencies ?? {}) as Record<string, string>;

let added = 0;
for (const [name, version] of Object.entries(optional)) {
  const path = `node_modules/${name}`;
  if (packages[path]) continue;
  const match = /cli-(\w+)-(\w+)(-musl)?$/.exec(name);
  if (!match) continue;
  const [, os, cpu, musl] = match;
  packages[path] = {
    version,
    cpu: [cpu],
    dev: true,
    ...(musl ? { libc: ['musl'] } : {}),
    license: 'MIT OR Apache-2.0',
    optional: true,
    os: [os],
    engines: { node: '>=14.21.3' },
  };
  added++;
}
// npm orders lock entries by path with an English locale comparison; the root ("") stays first.
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lockfile: added ${added} platform entries\n`);
