import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_BATCHES_IN_FLIGHT } from '../../../src/services/measurement/event-service.ts';
import type { TestServer } from '../../support/server.ts';

/** The events a test server stored in the default project's `environment`, oldest first. */
export async function storedEvents(server: TestServer, environment = 'production') {
  const projectId = (await server.call('GET', '/v1/projects/default')).body.id;
  return server.store.events.listEvents({ projectId, environment, limit: 100_000 });
}

/** Counts the POST /v1/events requests the server answers, by status (`200`, `503`). */
export function countEventPosts(server: TestServer): Map<string, number> {
  const counts = new Map<string, number>();
  server.app.server.on('request', (request, response) => {
    if (request.method !== 'POST' || request.url?.split('?')[0] !== '/v1/events') return;
    response.on('finish', () => {
      const key = String(response.statusCode);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    });
  });
  return counts;
}

/**
 * Takes every place the server's event service has for batches, as a flood of batches would: the
 * real route answers 503 with Retry-After until the returned function gives them back.
 */
export function overload(server: TestServer): () => void {
  for (let i = 0; i < DEFAULT_BATCHES_IN_FLIGHT; i++) server.services.events.admit();
  return () => {
    for (let i = 0; i < DEFAULT_BATCHES_IN_FLIGHT; i++) server.services.events.release();
  };
}

/**
 * A gateway in front of `upstream` that passes every request on, but answers the first
 * POST /v1/events with 503 (Retry-After: 1) after the server has stored it: an answer lost on the
 * way back. It records the bodies of the event batches it passed on.
 */
export async function gatewayLosingFirstAnswer(
  upstream: string,
): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const target = new URL(upstream);
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const isBatch = incoming.method === 'POST' && incoming.url === '/v1/events';
      if (isBatch) bodies.push(body.toString());
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('end', () => {
            if (isBatch && bodies.length === 1) {
              outgoing
                .writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' })
                .end('upstream answer lost');
              return;
            }
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
          });
        },
      );
      forward.on('error', () => outgoing.writeHead(502).end());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
