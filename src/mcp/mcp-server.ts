import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiCall } from './api-call.ts';
import { documentation, RESOURCE_TEMPLATES, readResource } from './resources.ts';
import { TOOLS } from './tools.ts';

export interface McpOptions {
  /** Every tool call's door: an API request as the caller's key. */
  readonly call: ApiCall;
  /** The dashboard's origin, for links handed back. */
  readonly dashboard: string;
}

const VERSION: string = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'),
).version;

const INSTRUCTIONS =
  "Flagstaff feature flags. Every tool acts as the API key this server was given, with that key's role: a viewer reads, an editor writes. Flags are named by project key and flag key. In an environment that requires approvals a write opens a change request (the answer gives its link) instead of changing anything. Documentation pages are resources under flagstaff://docs/.";

/**
 * The MCP server of one caller: tools and resources that are each ordinary API calls through
 * `call`, so the key's role, the approval gate and the audit log apply unchanged (decision 1990).
 * The low-level SDK server, so tool inputs are the TypeBox JSON Schemas the API already speaks.
 */
export function createMcpServer(options: McpOptions): Server {
  const server = new Server(
    { name: 'flagstaff', version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.input as { type: 'object' },
      annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined) {
      return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
    }
    const result = await tool.run(
      { call: options.call, dashboard: options.dashboard },
      request.params.arguments ?? {},
    );
    return { content: [{ type: 'text', text: result.text }], isError: result.isError === true };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: documentation() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [...RESOURCE_TEMPLATES],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
    contents: [await readResource(options.call, request.params.uri)],
  }));
  return server;
}
