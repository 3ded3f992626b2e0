import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { takeOverConnection } from './connection-takeover.ts';

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx and similar proxies buffer responses unless told not to.
  'x-accel-buffering': 'no',
};

/** A header value that could split the response is never written (ours never hold one). */
const UNSAFE_HEADER_VALUE = /[\r\n]/;

/** The response head, written by hand once the connection is ours: the body runs until the connection closes. */
function responseHead(headers: Record<string, string>): string {
  let head = 'HTTP/1.1 200 OK\r\n';
  for (const [name, value] of Object.entries({ ...headers, ...STREAM_HEADERS, connection: 'close' })) {
    if (!UNSAFE_HEADER_VALUE.test(name) && !UNSAFE_HEADER_VALUE.test(value)) head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

/** A client that half-closes its side is gone: nothing more will be read, so the stream ends. */
function endWithClient(this: Socket): void {
  this.destroy();
}
/** Errors on a stream's connection (a reset by the client) end it through 'close'; nothing to add. */
function ignoreError(): void {}

/**
 * Answers an event-stream request with `200 text/event-stream` and `headers` (CORS, request id)
 * and returns where the stream's messages go. The connection is taken from the HTTP server
 * (see takeOverConnection), so an idle stream holds a socket and nothing of the request; the
 * response then counts as finished for the server's hooks (request log, metrics, tracing),
 * as a handshake would. Where the takeover is not possible, the stream stays on `response`.
 */
export function openEventStreamConnection(
  request: IncomingMessage,
  response: ServerResponse,
  headers: Record<string, string>,
): Writable {
  const socket = takeOverConnection(request, response);
  if (socket === undefined) {
    response.writeHead(200, { ...headers, ...STREAM_HEADERS });
    return response;
  }
  socket.setNoDelay(true);
  socket.on('error', ignoreError);
  socket.on('end', endWithClient);
  // Reading on (and dropping what arrives) is how a client's close is noticed.
  socket.resume();
  socket.write(responseHead(headers));
  response.emit('finish');
  return socket;
}
