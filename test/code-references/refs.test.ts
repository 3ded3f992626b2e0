import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runRefsCommand } from '../../src/cli/code-references/command.ts';
import { MAX_FILE_BYTES } from '../../src/cli/code-references/scan.ts';
import { createKey, setupActor } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * `flagstaff refs` (issue 39) over a fixture repository: keys in TypeScript, Go, Python, YAML and
 * a minified bundle, with near-misses that must not match (`new-checkout-v2`, `app.new-checkout`,
 * `new-checkout_beta`, `xdark-mode`, `pricing.v2x`), and files git does not track, too large or
 * binary, which are not read.
 */

const FIXTURE = join(import.meta.dirname, '../fixtures/code-references');

/** Exactly what the fixture names: flag, file and line. */
const EXPECTED = [
  ['dark-mode', 'cmd/server/main.go', 12],
  ['dark-mode', 'deploy/flags.yaml', 3],
  ['gone-flag', 'app/settings.py', 12],
  ['new-checkout', 'dist/bundle.min.js', 1],
  ['new-checkout', 'src/checkout.ts', 7],
  ['old-banner', 'src/checkout.ts', 8],
  ['pricing.v2', 'app/settings.py', 7],
  ['pricing.v2', 'app/settings.py', 8],
];

function fixtureRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-refs-'));
  cpSync(FIXTURE, dir, { recursive: true });
  // Tracked but not read: a binary file and one over the size limit, both naming a flag.
  writeFileSync(
    join(dir, 'logo.png'),
    Buffer.concat([Buffer.from('\x89PNG\0\0'), Buffer.from('"dark-mode"')]),
  );
  writeFileSync(join(dir, 'data.json'), `["dark-mode", "${'x'.repeat(MAX_FILE_BYTES)}"]`);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  // Not tracked: never read.
  writeFileSync(join(dir, 'notes.txt'), 'remember dark-mode and new-checkout\n');
  return dir;
}

interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

describeEachDatabase('flagstaff refs: code references from the repository', (database) => {
  let server: TestServer;
  let dir: string;
  let editor: string;
  const refs = async (...extra: string[]): Promise<Run> => {
    let out = '';
    let err = '';
    const code = await runRefsCommand(
      [dir, '--project', 'default', '--repository', 'acme/shop', ...extra],
      { FLAGSTAFF_URL: server.url, FLAGSTAFF_KEY: editor },
      { out: (text) => (out += text), err: (text) => (err += text) },
    );
    return { code, out, err };
  };
  const auditedReports = async () =>
    (await server.call('GET', '/v1/projects/default/audit-log?action=code_references.updated&limit=100')).body
      .length as number;

  beforeAll(async () => {
    server = await startTestServer(database);
    for (const key of ['new-checkout', 'dark-mode', 'pricing.v2', 'old-banner', 'gone-flag', 'unused-flag']) {
      await server.services.flags.create(setupActor, 'default', { key });
    }
    const project = await server.services.projects.get(setupActor, 'default');
    editor = (await createKey(server.services, project.id, 'editor')).secret;
    dir = fixtureRepository();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds exactly the expected references, with two lines of context, and reports them', async () => {
    const run = await refs('--url-template', 'https://git.example/acme/shop/blob/{branch}/{path}#L{line}');
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /8 references to 5 flags in 5 files \(1 too large, 1 binary skipped\); reported acme\/shop@main: 8 added, 0 removed/,
    );
    const stored = await server.call('GET', '/v1/projects/default/code-references');
    expect(stored.status).toBe(200);
    expect(
      stored.body.map((r: { flag: string; path: string; line: number }) => [r.flag, r.path, r.line]),
    ).toEqual(EXPECTED);
    const checkout = stored.body.find(
      (r: { path: string; line: number }) => r.path === 'src/checkout.ts' && r.line === 7,
    );
    expect(checkout).toMatchObject({
      repository: 'acme/shop',
      branch: 'main',
      url: 'https://git.example/acme/shop/blob/main/src/checkout.ts#L7',
    });
    expect(checkout.context).toHaveLength(5);
    expect(checkout.context[2]).toContain("getBooleanValue('new-checkout'");
    // The bundle's one long line is cut around the match.
    const bundle = stored.body.find((r: { path: string }) => r.path === 'dist/bundle.min.js');
    expect(bundle.context).toHaveLength(1);
    expect(bundle.context[0].length).toBeLessThanOrEqual(240);
    expect(bundle.context[0]).toContain('"new-checkout"');
    expect(await auditedReports()).toBe(1);
    const one = await server.call('GET', '/v1/projects/default/code-references?flag=dark-mode');
    expect(one.body.map((r: { path: string }) => r.path)).toEqual([
      'cmd/server/main.go',
      'deploy/flags.yaml',
    ]);
  });

  it('a second scan of the unchanged tree changes nothing; --fail-on-archived fails on an archived or deleted flag', async () => {
    const before = (await server.call('GET', '/v1/projects/default/code-references')).body;
    const old = await server.call('GET', '/v1/projects/default/flags/old-banner');
    await server.call('PATCH', `/v1/flags/${old.body.id}`, { body: { archived: true } });
    const gone = await server.call('GET', '/v1/projects/default/flags/gone-flag');
    expect((await server.call('DELETE', `/v1/flags/${gone.body.id}`)).status).toBe(204);

    const run = await refs(
      '--fail-on-archived',
      '--url-template',
      'https://git.example/acme/shop/blob/{branch}/{path}#L{line}',
    );
    expect(run.out).toMatch(/acme\/shop@main unchanged\./);
    expect(run.err).toContain('code still reads the archived flag "old-banner"');
    expect(run.err).toContain('code still reads the deleted flag "gone-flag"');
    expect(run.code).toBe(1);
    expect((await server.call('GET', '/v1/projects/default/code-references')).body).toEqual(before);
    expect(await auditedReports()).toBe(1);
    // Without the option it reports and succeeds.
    expect(
      (await refs('--url-template', 'https://git.example/acme/shop/blob/{branch}/{path}#L{line}')).code,
    ).toBe(0);
  });

  it('a viewer key may read references but not report them', async () => {
    const project = await server.services.projects.get(setupActor, 'default');
    const viewer = (await createKey(server.services, project.id, 'viewer')).secret;
    const put = await server.call('PUT', '/v1/projects/default/code-references/acme%2Fshop', {
      key: viewer,
      body: { branch: 'main', references: [] },
    });
    expect(put.status).toBe(403);
    expect((await server.call('GET', '/v1/projects/default/code-references', { key: viewer })).status).toBe(
      200,
    );
  });
});
