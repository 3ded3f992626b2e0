import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiCall } from '../../mcp/api-call.ts';
import { publicOrigin } from '../public-origin.ts';
import { ANY, access } from '../route-access.ts';

export interface McpRouteOptions {
  /** The whole app, whose routes each tool call is injected into. */
  readonly root: FastifyInstance;
  readonly publicUrl?: string | undefined;
}

/**
 * Each tool call as an ordinary request to this node's own routes, with the caller's
 * Authorization header and address: the same admission, role, gate, rate limit and audit as a
 * call from outside (decision 1990).
 */
function injectedAs(root: FastifyInstance, request: FastifyRequest): ApiCall {
  const authorization = request.headers.authorization ?? '';
  return async ({ method, path, body }) => {
    const response = await root.inject({
      method,
      url: path,
      remoteAddress: request.ip,
      headers: {
        authorization,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json() };
  };
}

/** The MCP answer (a Web Response) as Fastify's reply. */
async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  const text = await response.text();
  return reply.send(text === '' ? undefined : text);
}

/**
 * MCP's streamable HTTP at `/mcp`, stateless: every POST gets a server and a transport of its
 * own, answering JSON rather than an event stream, so no session outlives its request and any node
 * can answer any request. A key that may read something (viewer or more) may open the door; each
 * tool then passes its own route's checks. GET (a server-to-client stream) and DELETE (ending a
 * session) have nothing to serve here: 405, as the transport's specification allows.
 */
/**
 * The MCP SDK, loaded on the first call to /mcp rather than at start: it is the largest module a
 * node carries (~14 MB of RSS), and most nodes never serve an MCP client (issue 40).
 */
let mcpModules:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        typeof import('../../mcp/mcp-server.ts'),
      ]
    >
  | undefined;
const loadMcp = () =>
  (mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('../../mcp/mcp-server.ts'),
  ]));

export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  app.post('/mcp', { schema: { hide: true }, config: access('viewer', ANY) }, async (request, reply) => {
    const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
    const server = createMcpServer({
      call: injectedAs(options.root, request),
      dashboard: publicOrigin(request, options.publicUrl),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const url = new URL(request.url, 'http://mcp.invalid');
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const webRequest = new Request(url, { method: 'POST', headers });
      return await sendResponse(
        reply,
        await transport.handleRequest(webRequest, { parsedBody: request.body }),
      );
    } finally {
      await server.close();
    }
  });
}
