import type { FastifyRequest } from 'fastify';

/** An IPv4-mapped socket address (`::ffff:127.0.0.1`) as the IPv4 address it is. */
const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The origin to put in URLs this service hands out for later use (event-stream URLs):
 * FLAGSTAFF_PUBLIC_URL when set, else the address the server listens on — never the request's
 * Host or X-Forwarded-* headers, which a client or a cache in between can forge to point a
 * token-bearing URL at someone else's host. A wildcard listening address (`0.0.0.0`, `::`)
 * becomes the local address the connection arrived at, which is the socket's, not a header.
 */
export function publicOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const listening = request.server.server.address();
  const port = typeof listening === 'object' && listening !== null ? listening.port : undefined;
  let host = typeof listening === 'object' && listening !== null ? listening.address : undefined;
  if (host === undefined || host === '0.0.0.0' || host === '::') host = request.socket.localAddress;
  host = host === undefined ? '127.0.0.1' : (MAPPED.exec(host)?.[1] ?? host);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const scheme = (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  return `${scheme}://${hostPart}${port === undefined ? '' : `:${port}`}`;
}
