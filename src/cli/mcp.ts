import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ApiCall } from '../mcp/api-call.ts';
import { createMcpServer } from '../mcp/mcp-server.ts';
import { type ApiClient, ApiError } from './flags-as-code/api-client.ts';
import type { CliOutput } from './operator.ts';
import { SERVER_OPTIONS, serverClientOf } from './server-options.ts';

export const MCP_USAGE = `  mcp        flagstaff mcp [--server URL] [--key KEY]
             an MCP server on stdin/stdout for AI assistants: its tools read and change flags as
             that key, over the API of a running server (FLAGSTAFF_URL, FLAGSTAFF_KEY)`;

/**
 * Each tool call through the flags-as-code CLI's client (429s waited out): its refusals come
 * back as answers with their problem, for the tool to report; only an unreachable server throws.
 */
function callThrough(client: ApiClient): ApiCall {
  return async ({ method, path, body }) => {
    try {
      const answer = await client.request(method, path, body === undefined ? {} : { body });
      return { status: answer.status, body: answer.body };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 0) throw error;
      return {
        status: error.status,
        body: {
          code: error.code,
          detail: error.message,
          ...(error.errors.length ? { errors: error.errors } : {}),
        },
      };
    }
  };
}

/** `flagstaff mcp`: serves MCP on stdio until stdin closes; stdout carries nothing but the protocol. */
export async function runMcpCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  output: CliOutput,
): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    strict: false,
    options: SERVER_OPTIONS,
  });
  const client = serverClientOf(values, env, output, 'flagstaff mcp');
  if (client === undefined) return 2;
  const mcp = createMcpServer({ call: callThrough(client), dashboard: client.server });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await mcp.connect(transport);
  await closed;
  await mcp.close();
  return 0;
}
