/**
 * `npm run image`: builds the Dockerfile into localhost/flagstaff:latest with podman, buildah
 * or docker, whichever is installed (CONTAINER_ENGINE names one). Arguments after `--` go to
 * the build, e.g. `npm run image -- --build-arg RUNTIME_IMAGE=…` (docs/decisions/1730).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const IMAGE = 'localhost/flagstaff:latest';
const ENGINES = ['podman', 'buildah', 'docker'] as const;

const installed = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

function revision(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

const root = new URL('..', import.meta.url);
const engine = process.env.CONTAINER_ENGINE || ENGINES.find(installed);
if (engine === undefined) {
  process.stderr.write('npm run image: install podman, buildah or docker to build the image\n');
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const args = [
  'build',
  // Docker's image format: OCI images have no HEALTHCHECK (docker builds this format anyway).
  ...(engine === 'docker' ? [] : ['--format', 'docker']),
  '--build-arg',
  `VERSION=${version}`,
  '--build-arg',
  `REVISION=${revision()}`,
  '--tag',
  IMAGE,
  ...process.argv.slice(2),
  '.',
];
process.stdout.write(`${engine} ${args.join(' ')}\n`);
const { status } = spawnSync(engine, args, { cwd: root, stdio: 'inherit' });
process.exit(status ?? 1);
