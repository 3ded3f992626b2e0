import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, edit, keyOf, tempFolder } from './support.ts';

// `apply --plan FILE` applies what was reviewed, and only that: it plans again from the files,
// refuses any difference from the saved plan before sending anything, and never sends a request
// that is not a write of the plan's own project (decision 1901).

vi.setConfig({ testTimeout: 90_000 });

/** The edit of checkout's default variant in production. */
const DEFAULT_OFF = [
  'production:\n    enabled: false\n    offVariant: off\n    defaultVariant: on',
  'production:\n    enabled: false\n    offVariant: off\n    defaultVariant: off',
] as const;

const flag = async (server: TestServer, project: string, key: string) =>
  (await server.call('GET', `/v1/projects/${project}/flags/${key}`)).body;

describeEachDatabase('flags as code: apply --plan', (database) => {
  let server: TestServer;
  let dir: string;
  let remove: () => Promise<void>;
  let planFile: string;

  /** `plan --json` of the folder as it is, saved; the saved plan. */
  async function savePlan(): Promise<{ projects: { resources: Record<string, unknown>[] }[] }> {
    const plan = await cli(server, 'plan', dir, ['--json']);
    expect(plan.code, plan.err).not.toBe(1);
    await writeFile(planFile, plan.out);
    return JSON.parse(plan.out);
  }
  const tamper = async (change: (saved: Awaited<ReturnType<typeof savePlan>>) => void) => {
    const saved = JSON.parse(await readFile(planFile, 'utf8'));
    change(saved);
    await writeFile(planFile, JSON.stringify(saved));
  };

  beforeEach(async () => {
    server = await startTestServer(database);
    ({ dir, remove } = await tempFolder());
    planFile = join(dir, 'plan.json');
    const ok = (method: string, path: string, body: unknown) => callAsAdmin(server, method, path, body);
    await ok('POST', '/v1/projects', { key: 'shop', name: 'Shop' });
    await ok('POST', '/v1/projects/shop/flags', { key: 'checkout' });
    await ok('POST', '/v1/projects', { key: 'other', name: 'Other' });
    await ok('POST', '/v1/projects/other/flags', { key: 'secret' });
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.code, pulled.err).toBe(0);
  });
  afterEach(async () => {
    await server.close();
    await remove();
  });

  it('applies a saved plan that the files still plan, and then plans nothing', async () => {
    await edit(join(dir, 'flags/checkout.yaml'), ...DEFAULT_OFF);
    await savePlan();
    const applied = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('updated flag checkout');
    expect((await flag(server, 'shop', 'checkout')).environments.production.defaultVariant).toBe('off');
    expect((await cli(server, 'plan', dir)).code).toBe(0);
  });

  it('refuses a saved plan with a request the files do not give (approving a change request), and sends nothing', async () => {
    await callAsAdmin(server, 'PATCH', '/v1/projects/shop/environments/production', { requiredApprovals: 1 });
    const editor = await keyOf(server, 'shop', 'editor');
    const checkout = await flag(server, 'shop', 'checkout');
    const asked = await server.call('PATCH', `/v1/flags/${checkout.id}?environment=production`, {
      key: editor,
      body: { enabled: true },
    });
    expect(asked.status).toBe(202);
    await cli(server, 'pull', dir);
    await savePlan();
    await tamper((saved) => {
      saved.projects[0]?.resources.push({
        kind: 'flag',
        key: 'checkout',
        action: 'update',
        id: checkout.id,
        version: checkout.version,
        changes: [],
        writes: [{ method: 'POST', path: `/v1/change-requests/${asked.body.id}/approve`, body: {} }],
      });
    });

    const applied = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain(
      `project shop: flag checkout: the saved plan sends POST /v1/change-requests/${asked.body.id}/approve {}; the files plan no change to it`,
    );
    expect(applied.err).toContain('is not what the files plan now; nothing changed');
    const request = await server.call('GET', `/v1/change-requests/${asked.body.id}`);
    expect(request.body).toMatchObject({ status: 'open', approvals: [] });
    expect((await flag(server, 'shop', 'checkout')).environments.production.enabled).toBe(false);
  });

  it("refuses a saved plan whose request names another project's flag, and writes neither", async () => {
    await edit(join(dir, 'flags/checkout.yaml'), ...DEFAULT_OFF);
    await savePlan();
    const secret = await flag(server, 'other', 'secret');
    await tamper((saved) => {
      const resource = saved.projects[0]?.resources[0] as { writes: Record<string, unknown>[] };
      resource.writes = [
        {
          method: 'PATCH',
          path: `/v1/flags/${secret.id}?environment=production`,
          body: { enabled: true },
        },
      ];
    });
    const applied = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain(
      `project shop: flag checkout: request 1 of the saved plan is PATCH /v1/flags/${secret.id}?environment=production {"enabled":true}; the files give PATCH`,
    );
    expect((await flag(server, 'other', 'secret')).version).toBe(secret.version);
    expect((await flag(server, 'shop', 'checkout')).environments.production.defaultVariant).toBe('on');
  });

  it('refuses a saved plan when the files were edited after it was made, naming the resource', async () => {
    await edit(join(dir, 'flags/checkout.yaml'), ...DEFAULT_OFF);
    await savePlan();
    await edit(join(dir, 'flags/checkout.yaml'), 'key: checkout', 'key: checkout\ntags:\n  - late');
    const applied = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(applied.code).toBe(1);
    expect(applied.err).toMatch(
      /project shop: flag checkout: request 1 of the saved plan is PATCH .*; the files give PATCH .*late/,
    );
    expect((await flag(server, 'shop', 'checkout')).tags).toEqual([]);
  });

  it('refuses a saved plan for a project the files are not, and one that is not a plan at all', async () => {
    await savePlan();
    await tamper((saved) => {
      (saved as unknown as { projects: unknown[] }).projects.push({
        project: 'other',
        resources: [
          {
            kind: 'project',
            key: 'other',
            action: 'update',
            changes: [],
            writes: [{ method: 'PATCH', path: '/v1/projects/other', body: { name: 'Taken' } }],
          },
        ],
      });
    });
    const applied = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain('project other: no folder of the files is this project');
    expect((await server.call('GET', '/v1/projects/other')).body.name).toBe('Other');

    await writeFile(planFile, '[{"method":"POST"}]');
    const notAPlan = await cli(server, 'apply', dir, ['--plan', planFile]);
    expect(notAPlan.code).toBe(1);
    expect(notAPlan.err).toContain('is not a saved plan (JSON of flagstaff plan --json)');
  });
});
