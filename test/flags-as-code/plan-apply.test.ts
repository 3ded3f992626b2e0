import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { flagBody } from '../support/requests.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, edit, keyOf, tempFolder } from './support.ts';

/** A flagd document giving one environment's flags: a boolean flag with targeting. */
const NEW_SEARCH = join(import.meta.dirname, '../fixtures/flagd/new-search.json');

// Each test runs several commands of many requests each: generous on a loaded machine.
vi.setConfig({ testTimeout: 90_000 });

/** A small project: two segments (one inside the other), a string flag using them, a boolean flag requiring it. */
async function seed(server: TestServer): Promise<void> {
  const ok = (method: string, path: string, body: unknown) => callAsAdmin(server, method, path, body);
  await ok('POST', '/v1/projects', { key: 'shop', name: 'Shop' });
  await ok('POST', '/v1/projects/shop/segments', {
    key: 'pro',
    rules: [{ type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' }],
  });
  await ok('POST', '/v1/projects/shop/segments', {
    key: 'beta',
    match: 'any',
    rules: [{ type: 'segment', segment: 'pro' }],
    included: ['ann'],
  });
  await ok('POST', '/v1/projects/shop/flags', {
    ...flagBody('checkout', 'string', { old: 'old', new: 'new' }),
    tags: ['web'],
    metadata: { team: 'payments' },
  });
  await ok('PATCH', '/v1/projects/shop/flags/checkout?environment=production', {
    enabled: true,
    defaultVariant: 'old',
    targets: [{ variant: 'new', values: ['bob'] }],
    rules: [
      {
        segments: ['beta'],
        serve: {
          rollout: {
            weights: [
              { variant: 'new', weight: 50 },
              { variant: 'old', weight: 50 },
            ],
          },
        },
      },
    ],
  });
  await ok('POST', '/v1/projects/shop/flags', { key: 'banner' });
  await ok('PATCH', '/v1/projects/shop/flags/banner?environment=production', {
    enabled: true,
    prerequisites: [{ flag: 'checkout', variants: ['new'] }],
  });
}

/** The edit of checkout's default variant in production (development has the same line, without targets after it). */
const PRODUCTION_DEFAULT = [
  'defaultVariant: old\n    targets:',
  'defaultVariant: new\n    targets:',
] as const;

const flag = async (server: TestServer, key: string) =>
  (await server.call('GET', `/v1/projects/shop/flags/${key}`)).body;

describeEachDatabase('flags as code: pull, plan, apply', (database) => {
  let server: TestServer;
  let dir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    server = await startTestServer(database);
    ({ dir, remove } = await tempFolder());
    await seed(server);
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.err).toBe('');
    expect(pulled.code).toBe(0);
  });
  afterEach(async () => {
    await server.close();
    await remove();
  });

  it('plans nothing and exits 0 right after a pull, and a second pull writes the same bytes', async () => {
    const plan = await cli(server, 'plan', dir);
    expect(plan.out).toContain('no changes');
    expect(plan.code).toBe(0);
    const first = await readFile(join(dir, 'flags/checkout.yaml'), 'utf8');
    const segment = await readFile(join(dir, 'segments/beta.yaml'), 'utf8');
    expect(first).toContain('team: payments');
    expect(first).not.toContain('flg_');
    expect(first).not.toContain('version');
    expect((await cli(server, 'pull', dir)).code).toBe(0);
    expect(await readFile(join(dir, 'flags/checkout.yaml'), 'utf8')).toBe(first);
    expect(await readFile(join(dir, 'segments/beta.yaml'), 'utf8')).toBe(segment);
  });

  it('plans exactly the edited field, applies it, and then plans nothing', async () => {
    const file = join(dir, 'flags/checkout.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(...PRODUCTION_DEFAULT));
    const plan = await cli(server, 'plan', dir);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('~ flag checkout');
    expect(plan.out).toContain('environments.production.defaultVariant: "old" → "new"');
    expect(plan.out.split('\n').filter((line) => line.includes('→'))).toHaveLength(1);
    expect(plan.out).toContain('Plan: 0 to create, 1 to update, 0 to delete');

    const ruleId = (await flag(server, 'checkout')).environments.production.rules[0].id;
    const applied = await cli(server, 'apply', dir);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('updated flag checkout');
    const after = await flag(server, 'checkout');
    expect(after.environments.production.defaultVariant).toBe('new');
    expect(after.environments.production.rules[0].id).toBe(ruleId);
    expect((await cli(server, 'plan', dir)).code).toBe(0);
    const again = await cli(server, 'apply', dir);
    expect(again.out).toContain('Nothing to apply.');
    expect((await flag(server, 'checkout')).version).toBe(after.version);
  });

  it('creates what a file adds, segments before the flags that use them', async () => {
    await writeFile(
      join(dir, 'segments/staff.yaml'),
      'key: staff\nrules:\n  - type: segment\n    segment: beta\n  - type: attribute\n    attribute: email\n    operator: ends_with\n    value: "@shop.example"\n',
    );
    await writeFile(
      join(dir, 'flags/dark-mode.yaml'),
      'key: dark-mode\ndescription: Dark theme\nenvironments:\n  production:\n    enabled: true\n    rules:\n      - segments: [staff]\n        serve: { variant: on }\n    defaultVariant: off\n    prerequisites:\n      - flag: banner\n        variants: [on]\n',
    );
    const plan = await cli(server, 'plan', dir);
    expect(plan.code).toBe(2);
    expect(plan.out).toMatch(/\+ segment staff[\s\S]*\+ flag dark-mode/);
    const applied = await cli(server, 'apply', dir);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    const created = await flag(server, 'dark-mode');
    expect(created.description).toBe('Dark theme');
    expect(created.environments.production).toMatchObject({ enabled: true, defaultVariant: 'off' });
    expect(created.environments.production.rules[0].segments).toEqual(['staff']);
    expect((await cli(server, 'plan', dir)).code).toBe(0);
  });

  it('adds an environment before the flag states that use it, and renames the project', async () => {
    await edit(join(dir, 'project.yaml'), 'name: Shop', 'name: Web shop');
    await edit(
      join(dir, 'project.yaml'),
      '  - key: production',
      '  - key: production\n  - key: staging\n    description: Pre-release',
    );
    await edit(
      join(dir, 'flags/banner.yaml'),
      'environments:',
      'environments:\n  staging:\n    enabled: true',
    );
    const plan = await cli(server, 'plan', dir);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('name: "Shop" → "Web shop"');
    expect(plan.out).toMatch(
      /\+ environment staging[\s\S]*~ flag banner[\s\S]*environments\.staging\.enabled: true/,
    );
    const applied = await cli(server, 'apply', dir);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect((await server.call('GET', '/v1/projects/shop')).body.name).toBe('Web shop');
    expect((await flag(server, 'banner')).environments.staging).toMatchObject({
      enabled: true,
      defaultVariant: 'on',
    });
    expect((await cli(server, 'plan', dir)).code).toBe(0);
  });

  it('fails only the resource changed through the API since the plan, and does not overwrite it', async () => {
    await edit(join(dir, 'flags/checkout.yaml'), ...PRODUCTION_DEFAULT);
    await edit(join(dir, 'segments/beta.yaml'), '- ann', '- ann\n  - carl');
    const plan = await cli(server, 'plan', dir, ['--json']);
    expect(plan.code).toBe(2);
    const planFile = join(dir, 'plan.json');
    await writeFile(planFile, plan.out);

    const id = (await flag(server, 'checkout')).id;
    const meanwhile = await server.call('PATCH', `/v1/flags/${id}?environment=production`, {
      body: { enabled: false },
    });
    expect(meanwhile.status).toBe(200);

    const applied = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain('FAILED flag checkout: changed on the server since it was planned');
    expect(applied.err.trim().split('\n')).toHaveLength(1);
    expect(applied.out).toContain('updated segment beta');
    const after = await flag(server, 'checkout');
    expect(after.environments.production).toMatchObject({ enabled: false, defaultVariant: 'old' });
    const segments = (await server.call('GET', '/v1/projects/shop/segments')).body;
    expect(segments.find((s: { key: string }) => s.key === 'beta').included).toEqual(['ann', 'carl']);
  });

  it('lists resources no file names as unmanaged, and deletes them only with --prune', async () => {
    await rm(join(dir, 'flags/banner.yaml'));
    const plan = await cli(server, 'plan', dir);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain('? flag banner: unmanaged');
    expect((await cli(server, 'apply', dir)).code).toBe(0);
    expect((await server.call('GET', '/v1/projects/shop/flags/banner')).status).toBe(200);

    const pruning = await cli(server, 'plan', dir, ['--prune']);
    expect(pruning.code).toBe(2);
    expect(pruning.out).toContain('- flag banner');
    const applied = await cli(server, 'apply', dir, ['--prune']);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('deleted flag banner');
    expect((await server.call('GET', '/v1/projects/shop/flags/banner')).status).toBe(404);
    expect((await cli(server, 'plan', dir, ['--prune'])).code).toBe(0);
  });

  it('turns a change to a guarded environment into one change request, printed with its dashboard link', async () => {
    const guard = await server.call('PATCH', '/v1/projects/shop/environments/production', {
      body: { requiredApprovals: 1 },
    });
    expect(guard.status).toBe(200);
    await cli(server, 'pull', dir);
    const editor = await keyOf(server, 'shop', 'editor');
    await edit(join(dir, 'flags/checkout.yaml'), ...PRODUCTION_DEFAULT);
    await edit(join(dir, 'flags/checkout.yaml'), 'tags:\n  - web', 'tags:\n  - web\n  - checkout');

    const applied = await cli(server, 'apply', dir, [], editor);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.out).toMatch(
      new RegExp(
        `change request chr_\\w+ for flag checkout in production: needs 1 approval: ${server.url}/projects/shop/change-requests`,
      ),
    );
    const after = await flag(server, 'checkout');
    expect(after.tags).toEqual(['checkout', 'web']);
    expect(after.environments.production.defaultVariant).toBe('old');

    const again = await cli(server, 'plan', dir, [], editor);
    expect(again.code).toBe(0);
    expect(again.out).toContain('flag checkout in production: awaiting approval');
    expect((await cli(server, 'apply', dir, [], editor)).out).toContain('Nothing to apply.');
    const open = await server.call('GET', '/v1/projects/shop/change-requests?status=open');
    expect(open.body).toHaveLength(1);
  });

  it("keeps an editor's new flag out of a guarded production until its change request is approved (issue 34, 4)", async () => {
    const guard = await server.call('PATCH', '/v1/projects/shop/environments/production', {
      body: { requiredApprovals: 1 },
    });
    expect(guard.status).toBe(200);
    await cli(server, 'pull', dir);
    const banner = await readFile(join(dir, 'flags/banner.yaml'), 'utf8');
    await writeFile(join(dir, 'flags/promo.yaml'), banner.replace('key: banner', 'key: promo'));
    const editor = await keyOf(server, 'shop', 'editor');

    const applied = await cli(server, 'apply', dir, [], editor);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.out).toMatch(/change request chr_\w+ for flag promo in production/);
    const inProduction = () =>
      server.call('POST', '/v1/flags/promo/evaluate?project=shop', {
        body: { environment: 'production', attributes: { targetingKey: 'x' } },
      });
    const before = await inProduction();
    expect(before.status).toBe(404);
    expect(before.body.code).toBe('flag_not_found');

    const [request] = (await server.call('GET', '/v1/projects/shop/change-requests?status=open')).body;
    const approved = await server.call('POST', `/v1/change-requests/${request.id}/approve`, { body: {} });
    expect(approved.status).toBe(200);
    const after = await inProduction();
    expect(after.status).toBe(200);
  });

  it('refuses each resource a viewer key may not change, one line each', async () => {
    const viewer = await keyOf(server, 'shop', 'viewer');
    await edit(join(dir, 'flags/checkout.yaml'), ...PRODUCTION_DEFAULT);
    await edit(join(dir, 'segments/beta.yaml'), '- ann', '- ann\n  - carl');
    const applied = await cli(server, 'apply', dir, [], viewer);
    expect(applied.code).toBe(1);
    const lines = applied.err.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^FAILED segment beta: refused: the key may not do this/);
    expect(lines[1]).toMatch(/^FAILED flag checkout: refused: the key may not do this/);
  });

  it("takes a flagd document as one environment's flags, as the flagd import reads it", async () => {
    await mkdir(join(dir, 'flagd'));
    await copyFile(NEW_SEARCH, join(dir, 'flagd/development.json'));
    const plan = await cli(server, 'plan', dir);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ flag new-search');
    expect((await cli(server, 'apply', dir)).code).toBe(0);
    const created = await flag(server, 'new-search');
    expect(created.environments.development).toMatchObject({ enabled: true, defaultVariant: 'off' });
    expect(created.environments.development.targeting).toBeDefined();
    const evaluated = await server.call('POST', '/v1/flags/new-search/evaluate?project=shop', {
      body: { environment: 'development', attributes: { targetingKey: 'x', email: 'ann@shop.example' } },
    });
    expect(evaluated.body).toMatchObject({ value: true, reason: 'targeting' });
    expect((await cli(server, 'plan', dir)).code).toBe(0);
    // A pull leaves the environment the document gives to the document.
    await cli(server, 'pull', dir);
    expect(await readFile(join(dir, 'flags/new-search.yaml'), 'utf8')).not.toContain('development');
    expect((await cli(server, 'plan', dir)).code).toBe(0);
  });
});
