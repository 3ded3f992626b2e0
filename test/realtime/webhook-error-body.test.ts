import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { processServerSecret } from '../../src/domain/server-secret.ts';
import { ERROR_TEXT_LIMIT, postSigned } from '../../src/webhooks/signed-post.ts';

// A receiver's error answer is read only as far as the delivery log keeps it (issue 34, item 13):
// a receiver answering hundreds of megabytes must not cost the node as much memory.

/** What the receiver below would send in all: far more than any socket buffers hold. */
const BODY_BYTES = 128 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

let server: Server;
let url: string;
/** Bytes the receiver handed to the connection before the client let go of it. */
let sent = 0;
let finished: Promise<void>;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    finished = new Promise((resolve) => {
      response.on('close', () => resolve());
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.write('overloaded: ');
      const pump = () => {
        // Only as fast as the client reads: what it never asks for is never sent.
        while (sent < BODY_BYTES && !response.destroyed) {
          sent += CHUNK.length;
          if (!response.write(CHUNK)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('keeps the start of a huge error answer and stops reading it there', async () => {
  const outcome = await postSigned(
    {
      url,
      secret: processServerSecret().seal('whsec_error-body'),
      event: 'flag.updated',
      deliveryId: 'dlv_error-body',
      payload: '{}',
    },
    { allowPrivate: true, clock: Date.now, serverSecret: processServerSecret(), timeoutMs: 30_000 },
  );
  await finished;
  expect(outcome.statusCode).toBe(500);
  expect(outcome.error).toBe(
    `answered 500: overloaded: ${'x'.repeat(ERROR_TEXT_LIMIT - 'overloaded: '.length)}`,
  );
  // The rest was cancelled: no more left the receiver than the connection's buffers took.
  expect(sent).toBeLessThan(16 * 1024 * 1024);
});
