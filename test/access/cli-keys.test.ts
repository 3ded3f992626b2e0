import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKeysCommand } from '../../src/cli/keys.ts';
import { describeEachDatabase } from '../support/database.ts';
import { type Harness, startHarness } from './support.ts';

const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');

/** Runs `flagstaff keys …` in-process on the harness's store, capturing what it prints. */
async function keys(node: Harness, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runKeysCommand(argv, node.store, {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
  });
  return { code, out, err };
}

const secretIn = (text: string) => /^\s+(fsk_\S+)$/m.exec(text)?.[1];

describeEachDatabase('flagstaff keys (for operators who lost their admin key)', (database) => {
  let node: Harness;
  beforeEach(async () => {
    node = await startHarness(database);
  });
  afterEach(() => node?.close());

  it('creates an organisation-wide admin key, prints its secret once, and the key works', async () => {
    const created = await keys(node, 'create', '--role', 'admin', '--name', 'Recovery');
    expect(created.code).toBe(0);
    const secret = secretIn(created.out) as string;
    expect(secret).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
    expect(created.out).toMatch(/admin, organisation-wide, all environments/);
    expect(
      (await node.call('POST', '/v1/projects', { key: secret, body: { key: 'made-by-cli-key' } })).status,
    ).toBe(201);

    const listed = await keys(node, 'list');
    expect(listed.out).toContain('Recovery');
    expect(listed.out).not.toContain(secret);
    const events = (await node.call('GET', '/v1/audit-log?action=api_key.created&limit=1')).body;
    expect(events[0].actor).toMatchObject({ type: 'user', id: 'cli' });
  });

  it('creates a project key bound to environments and a time, and lists one project’s keys', async () => {
    const created = await keys(
      node,
      'create',
      '--project',
      'default',
      '--role',
      'evaluator',
      '--environment',
      'production',
      '--environment',
      'development',
      '--expires-at',
      '2099-01-01T00:00:00Z',
    );
    expect(created.code).toBe(0);
    const secret = secretIn(created.out) as string;
    const reply = await node.call('GET', '/v1/flags/none', { key: secret });
    expect(reply.status).toBe(404);
    const listed = (await keys(node, 'list', '--project', 'default')).out.split('\n');
    expect(listed[0]).toMatch(/^ID\s+PREFIX\s+NAME\s+ROLE\s+PROJECT\s+ENVIRONMENTS\s+LAST USED\s+STATUS$/);
    expect(listed[1]).toMatch(
      /evaluator .* production,development .* active until 2099-01-01T00:00:00.000Z$/,
    );
    expect(listed).toHaveLength(3);
  });

  it('revokes a key: refused once the node resynchronises', async () => {
    const secret = secretIn((await keys(node, 'create', '--role', 'viewer')).out) as string;
    expect((await node.call('GET', '/v1/projects', { key: secret })).status).toBe(200);
    const id = (await keys(node, 'list')).out
      .split('\n')
      .find((line) => line.includes('viewer'))
      ?.split(/\s+/)[0];
    const revoked = await keys(node, 'revoke', id as string);
    expect([revoked.code, revoked.out]).toEqual([0, expect.stringMatching(/^Revoked key_/)]);
    // A running node hears of it through the change feed (revocation.test.ts, test/plane); here
    // the CLI shares the node's own connection, which moves no data_version, so the node is asked.
    await node.node.plane.sync.resync();
    expect((await node.call('GET', '/v1/projects', { key: secret })).status).toBe(401);
    expect((await keys(node, 'revoke', id as string)).out).toMatch(/was already revoked/);
    expect((await keys(node, 'list')).out).toMatch(/viewer .* revoked /);
  });

  it('refuses what it cannot do, with a message and a non-zero exit code', async () => {
    expect(await keys(node, 'create', '--role', 'owner')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--role must be one of'),
    });
    expect(await keys(node, 'create', '--role', 'viewer', '--project', 'nope')).toMatchObject({
      code: 1,
      err: 'flagstaff keys: No project "nope".\n',
    });
    expect(await keys(node, 'create', '--role', 'viewer', '--expires-at', 'soon')).toMatchObject({ code: 2 });
    expect(await keys(node, 'revoke', 'key_unknown')).toMatchObject({ code: 1 });
    expect(await keys(node, 'frobnicate')).toMatchObject({ code: 2 });
    expect(await keys(node, 'list', '--colour')).toMatchObject({ code: 2 });
  });
});

describe('flagstaff keys on the configured database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is dispatched by the flagstaff command and works on FLAGSTAFF_DATABASE_URL', async () => {
    const env = { ...process.env, FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'flagstaff.db')}` };
    const run = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, 'keys', ...args], { env });
    const created = await run('create', '--role', 'admin');
    expect(secretIn(created.stdout)).toMatch(/^fsk_/);
    const listed = await run('list');
    expect(listed.stdout).toMatch(/admin\s+\(organisation\)\s+\(all\)\s+never\s+active/);
    expect((await run('--help')).stdout).toContain('flagstaff keys create');
  });
});
