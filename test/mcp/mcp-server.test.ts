import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey, setupActor } from '../access/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The MCP server (issue 39; decision 1990), driven by the official MCP client over both of its
 * transports: `flagstaff mcp` on stdio, and streamable HTTP at /mcp of a running node. Each
 * tool call is an ordinary API call as the client's key: its role, the approval gate and the
 * audit log apply as to any other.
 */

const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');

type Connect = (server: TestServer, key: string) => Transport;

const TRANSPORTS: readonly (readonly [string, Connect])[] = [
  [
    'streamable HTTP at /mcp',
    (server, key) =>
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
  ],
  [
    'stdio (flagstaff mcp)',
    (server, key) =>
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { ...(process.env as Record<string, string>), FLAGSTAFF_URL: server.url, FLAGSTAFF_KEY: key },
        stderr: 'pipe',
      }),
  ],
];

interface ToolAnswer {
  readonly text: string;
  readonly isError: boolean;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return { text: content.map((c) => c.text).join('\n'), isError: result.isError === true };
}

describeEachDatabase('MCP server with the official client', (database) => {
  let server: TestServer;
  const keys: Record<'editor' | 'viewer' | 'evaluator', { id: string; secret: string }> = {} as never;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(database);
    const project = await server.services.projects.get(setupActor, 'default');
    for (const role of ['editor', 'viewer', 'evaluator'] as const) {
      const made = await createKey(server.services, project.id, role);
      keys[role] = { id: made.id, secret: made.secret };
    }
    const guarded = await server.call('PATCH', '/v1/projects/default/environments/production', {
      body: { requiredApprovals: 1 },
    });
    expect(guarded.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await server?.close();
  });

  const connect = async (transport: Transport): Promise<Client> => {
    const client = new Client({ name: 'flagstaff-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  for (const [name, transportFor] of TRANSPORTS) {
    it(`${name}: lists tools an assistant can choose from, and the documentation`, {
      timeout: 60_000,
    }, async () => {
      const client = await connect(transportFor(server, keys.viewer.secret));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'create_flag',
        'explain_flag',
        'get_change_request',
        'get_experiment',
        'get_flag',
        'get_release_plan',
        'list_change_requests',
        'list_flags',
        'list_stale_flags',
        'set_flag_targeting',
      ]);
      for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(80);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('flagstaff://docs/flags-as-code.md');
      const page = await client.readResource({ uri: 'flagstaff://docs/flags-as-code.md' });
      expect((page.contents[0] as { text: string }).text).toMatch(/flagstaff pull/);
    });

    it(`${name}: an editor creates a flag, switches it on in development, evaluates and explains it`, {
      timeout: 60_000,
    }, async () => {
      const client = await connect(transportFor(server, keys.editor.secret));
      const key = `assistant-${name.startsWith('stdio') ? 'stdio' : 'http'}`;
      const created = await callTool(client, 'create_flag', {
        project: 'default',
        key,
        name: 'Made by an assistant',
      });
      expect(created.isError, created.text).toBe(false);
      expect(JSON.parse(created.text).key).toBe(key);

      const on = await callTool(client, 'set_flag_targeting', {
        project: 'default',
        flag: key,
        environment: 'development',
        enabled: true,
        addRule: {
          conditions: [{ type: 'attribute', attribute: 'country', operator: 'in', values: ['NZ'] }],
          serve: { variant: 'off' },
        },
      });
      expect(on.isError, on.text).toBe(false);

      const nz = await callTool(client, 'explain_flag', {
        project: 'default',
        flag: key,
        environment: 'development',
        context: { targetingKey: 'user-1', country: 'NZ' },
      });
      expect(JSON.parse(nz.text)).toMatchObject({ value: false, variant: 'off', reason: 'targeting' });
      const elsewhere = await callTool(client, 'explain_flag', {
        project: 'default',
        flag: key,
        environment: 'development',
        context: { targetingKey: 'user-1', country: 'FR' },
      });
      expect(JSON.parse(elsewhere.text)).toMatchObject({ value: true, variant: 'on' });

      // What the assistant did is what the API holds, and the flag is findable by search.
      const read = await server.call('GET', `/v1/projects/default/flags/${key}`);
      expect(read.body.environments.development.enabled).toBe(true);
      expect(read.body.environments.production.enabled).toBe(false);
      const found = await callTool(client, 'list_flags', { project: 'default', q: 'assistant' });
      expect(JSON.parse(found.text).map((f: { key: string }) => f.key)).toContain(key);

      // Every write is in the audit log under the editor's key.
      const audit = await server.call(
        'GET',
        `/v1/projects/default/audit-log?actorId=${keys.editor.id}&limit=100`,
      );
      const mine = audit.body.filter((event: { resource: { key: string } }) => event.resource.key === key);
      expect(mine.map((event: { action: string }) => event.action).sort()).toEqual([
        'flag.created',
        'flag.updated',
      ]);
      for (const event of mine) expect(event.actor).toMatchObject({ type: 'api_key', id: keys.editor.id });
    });

    it(`${name}: an editor's write into a guarded production opens a change request, not a write`, {
      timeout: 60_000,
    }, async () => {
      const key = `guarded-${name.startsWith('stdio') ? 'stdio' : 'http'}`;
      await server.call('POST', '/v1/projects/default/flags', { body: { key } });
      const client = await connect(transportFor(server, keys.editor.secret));
      const answer = await callTool(client, 'set_flag_targeting', {
        project: 'default',
        flag: key,
        environment: 'production',
        enabled: true,
      });
      expect(answer.isError).toBe(false);
      const link = /^change request opened: (\S+)/.exec(answer.text)?.[1];
      expect(link).toMatch(new RegExp(`^${server.url}/projects/default/change-requests\\?request=`));
      const id = new URL(link as string).searchParams.get('request');
      expect(
        (await server.call('GET', `/v1/projects/default/flags/${key}`)).body.environments.production.enabled,
      ).toBe(false);
      // The dashboard link leads to the dashboard, and the request is there to approve.
      expect((await fetch(link as string)).status).toBe(200);
      const shown = await callTool(client, 'get_change_request', { id });
      expect(JSON.parse(shown.text)).toMatchObject({ id, status: 'open', patch: { enabled: true } });
      const listed = await callTool(client, 'list_change_requests', { project: 'default', status: 'open' });
      expect(JSON.parse(listed.text).map((r: { id: string }) => r.id)).toContain(id);
      const audit = await server.call(
        'GET',
        `/v1/projects/default/audit-log?actorId=${keys.editor.id}&limit=100`,
      );
      expect(audit.body.map((e: { resource: { id: string } }) => e.resource.id)).toContain(id);
    });

    it(`${name}: a viewer's key reads but cannot write`, { timeout: 60_000 }, async () => {
      const client = await connect(transportFor(server, keys.viewer.secret));
      const refused = await callTool(client, 'create_flag', { project: 'default', key: 'by-a-viewer' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^refused \(403 forbidden\)/);
      expect((await server.call('GET', '/v1/projects/default/flags/by-a-viewer')).status).toBe(404);
      const read = await callTool(client, 'get_flag', { project: 'default', flag: 'by-a-viewer' });
      expect(read.text).toMatch(/^refused \(404/);
      const stale = await callTool(client, 'list_stale_flags', { project: 'default' });
      expect(stale.isError, stale.text).toBe(false);
    });

    it(`${name}: a wrong key is refused`, { timeout: 60_000 }, async () => {
      const wrong = 'fsk_not-a-key-0123456789abcdefghijklmnopqrstu';
      if (name.startsWith('stdio')) {
        // The stdio server runs as the key it is given; the API refuses each call it makes.
        const client = await connect(transportFor(server, wrong));
        const answer = await callTool(client, 'list_flags', { project: 'default' });
        expect(answer).toMatchObject({ isError: true });
        expect(answer.text).toMatch(/^refused \(401/);
      } else {
        await expect(connect(transportFor(server, wrong))).rejects.toThrow(/401/);
        const bare = await fetch(`${server.url}/mcp`, { method: 'POST', body: '{}' });
        expect(bare.status).toBe(401);
        expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    });
  }

  it("streamable HTTP: an evaluator key (an application's) may not open the door", async () => {
    await expect(connect(TRANSPORTS[0]?.[1](server, keys.evaluator.secret) as Transport)).rejects.toThrow(
      /403/,
    );
  });
});
