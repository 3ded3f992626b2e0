import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventSender } from './event-sender.ts';
import { transportFor } from './tracking.ts';
import { toWireEvent } from './tracking-event.ts';
import { trackingSettings } from './tracking-options.ts';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

/** A test peer that records each body POSTed to it and answers with the next of `answers` (then 200). */
async function peer(...answers: Answer[]) {
  const bodies: string[] = [];
  const times: number[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      bodies.push(body);
      times.push(Date.now());
      const answer = answers.shift();
      if (answer) return answer(request, response);
      const count = (JSON.parse(body) as { events: unknown[] }).events.length;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ accepted: count, rejected: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url, bodies, times };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const lines: string[] = [];
const logger = {
  warn: (line: unknown) => lines.push(String(line)),
  error: (line: unknown) => lines.push(String(line)),
};
const senderFor = (url: string, settings = {}) =>
  new EventSender(
    transportFor({ baseUrl: url, headers: { authorization: 'Bearer k' } }),
    trackingSettings(settings),
    logger,
  );
const track = (sender: EventSender, n: number) => {
  for (let i = 0; i < n; i++) sender.enqueue(toWireEvent('e', { targetingKey: 'u' }, { value: i }));
};

describe('EventSender', () => {
  it('sends a batch again, the same bytes, after a connection cut and after a 500', async () => {
    const cut: Answer = (request) => request.socket.destroy();
    const fail: Answer = (_request, response) => response.writeHead(500).end();
    const { url, bodies } = await peer(cut, fail);
    const sender = senderFor(url);
    track(sender, 3);
    await sender.close();
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies).size).toBe(1);
    expect(sender.stats()).toMatchObject({ delivered: 3, buffered: 0 });
  });

  it('waits the Retry-After of a 429 before sending again', async () => {
    const limited: Answer = (_request, response) => response.writeHead(429, { 'retry-after': '1' }).end();
    const { url, times } = await peer(limited);
    const sender = senderFor(url);
    track(sender, 1);
    await sender.close();
    expect(times).toHaveLength(2);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('never sends again a batch refused with a 4xx', async () => {
    const refused: Answer = (_request, response) =>
      response
        .writeHead(403, { 'content-type': 'application/problem+json' })
        .end('{"detail":"not this environment"}');
    const { url, bodies } = await peer(refused);
    const sender = senderFor(url);
    track(sender, 2);
    await sender.close();
    expect(bodies).toHaveLength(1);
    expect(sender.stats()).toMatchObject({ refused: 2, delivered: 0, buffered: 0 });
    expect(lines.at(-1)).toMatch(/HTTP 403\): not this environment/);
  });

  it('sends a full batch at once and the rest after the interval', async () => {
    const { url, bodies, times } = await peer();
    const sender = senderFor(url, { batchSize: 2, flushIntervalMs: 300 });
    const started = Date.now();
    track(sender, 3);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(bodies.map((body) => JSON.parse(body).events.length)).toEqual([2, 1]);
    expect((times[0] ?? 0) - started).toBeLessThan(200);
    expect((times[1] ?? 0) - started).toBeGreaterThanOrEqual(290);
  });

  it('gives up at the close deadline, saying how many events it could not deliver', async () => {
    const down: Answer = (_request, response) => response.writeHead(503, { 'retry-after': '60' }).end();
    const { url } = await peer(down);
    const sender = senderFor(url, { closeTimeoutMs: 300 });
    track(sender, 4);
    const started = Date.now();
    await sender.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sender.stats()).toMatchObject({ delivered: 0, buffered: 4 });
    expect(lines.at(-1)).toMatch(/4 tracking events not delivered/);
  });
});
