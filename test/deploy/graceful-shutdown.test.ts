import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNodeProcess } from '../plane/node-process.ts';
import { eventually } from '../support/eventually.ts';

const ADMIN_KEY = 'fsk_shutdown-test-admin-key-0123456789abcdef';

interface Outcome {
  readonly startedAt: number;
  readonly status: number | undefined;
  readonly error?: string;
}

/** One request on a kept-alive agent; never rejects. */
function send(
  agent: Agent,
  base: URL,
  method: string,
  path: string,
  body?: string,
  holdBodyMs = 0,
): Promise<Outcome> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${ADMIN_KEY}`,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ startedAt, status: res.statusCode }));
        res.on('error', (error) => resolve({ startedAt, status: undefined, error: error.message }));
      },
    );
    req.on('error', (error) => resolve({ startedAt, status: undefined, error: error.message }));
    if (body === undefined) req.end();
    else if (holdBodyMs === 0) req.end(body);
    else {
      // Half the body now and the rest later: a request the server is in the middle of reading.
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), holdBodyMs);
    }
  });
}

/** A kept-alive raw connection that has already carried one request; sends a second on demand. */
async function idleConnection(base: URL): Promise<{ socket: Socket; get(path: string): Promise<string> }> {
  const socket = connect(Number(base.port), base.hostname);
  let received = '';
  let waiting: ((text: string) => void) | undefined;
  socket.on('data', (chunk) => {
    received += chunk;
    const end = received.indexOf('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(received);
    if (end >= 0 && length && received.length >= end + 4 + Number(length[1])) {
      const text = received;
      received = '';
      waiting?.(text);
    }
  });
  socket.on('error', () => waiting?.('error'));
  socket.on('close', () => waiting?.('closed'));
  const get = (path: string) =>
    new Promise<string>((resolve) => {
      waiting = resolve;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${base.host}\r\n\r\n`);
    });
  await get('/healthz');
  return { socket, get };
}

describe('graceful shutdown on SIGTERM', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-shutdown-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says draining at once, fails no request accepted before the signal, ends streams with a retry hint, keeps webhooks in the outbox, flushes insights, and exits 0', {
    timeout: 120_000,
  }, async () => {
    const env = {
      FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'flagstaff.db')}`,
      FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
      FLAGSTAFF_SHUTDOWN_GRACE: '10',
      FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    // A webhook receiver that takes deliveries and never answers: one is in flight at the signal.
    const held: Socket[] = [];
    const receiver = createServer((socket) => held.push(socket)).listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    const receiverPort = (receiver.address() as { port: number }).port;
    const node = startNodeProcess(env);
    const base = new URL(await node.listening);
    const api = (method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
      fetch(new URL(path, base), {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const webhook = await (
      await api('POST', '/v1/projects/default/webhooks', {
        url: `http://127.0.0.1:${receiverPort}/hook`,
        events: ['flag.*'],
      })
    ).json();
    await api('POST', '/v1/projects/default/flags', { key: 'checkout' });
    const evaluator = await (
      await api('POST', '/v1/projects/default/api-keys', {
        name: 'app',
        role: 'evaluator',
        environments: ['production'],
      })
    ).json();
    const bulk = await (
      await api('POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u1' } }, evaluator.secret)
    ).json();
    const stream = await fetch(bulk.eventStreams[0].url, { headers: { accept: 'text/event-stream' } });
    const streamText = stream.text();
    const idle = await Promise.all([1, 2, 3, 4, 5].map(() => idleConnection(base)));

    // Load: 12 clients on kept-alive connections, evaluating as fast as answers come.
    const agent = new Agent({ keepAlive: true, maxSockets: 12 });
    const outcomes: Outcome[] = [];
    let signalledAt = Number.POSITIVE_INFINITY;
    const client = async () => {
      for (;;) {
        const outcome = await send(
          agent,
          base,
          'GET',
          '/v1/flags/checkout?project=default&environment=production',
        );
        outcomes.push(outcome);
        if (outcome.startedAt > signalledAt) return;
      }
    };
    const clients = Array.from({ length: 12 }, client);
    // Requests in the middle of being read when the signal comes: they must complete.
    const slowAgent = new Agent({ keepAlive: true });
    const slow = [1, 2, 3].map((i) =>
      send(slowAgent, base, 'POST', '/v1/projects/default/flags', JSON.stringify({ key: `late-${i}` }), 1500),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));

    expect(await eventually(async () => held.length > 0, 10_000)).toBe(true);

    const exited = new Promise<number | null>((resolve) => node.child.once('exit', (code) => resolve(code)));
    signalledAt = performance.now();
    node.child.kill('SIGTERM');

    // At once: a kept-alive connection that asks is told the node is draining.
    let readiness = '';
    for (const connection of idle) {
      readiness = await connection.get('/readyz');
      if (!readiness.includes('"status":"ready"')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(readiness).toMatch(/^HTTP\/1\.1 503/);
    expect(readiness).toContain('{"status":"draining"');
    // No new connections.
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(Number(base.port), base.hostname);
      socket.on('connect', () => resolve('accepted'));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');

    await Promise.all(clients);
    const slowOutcomes = await Promise.all(slow);
    expect(await exited).toBe(0);
    for (const connection of idle) connection.socket.destroy();
    agent.destroy();
    slowAgent.destroy();

    const before = outcomes.filter((o) => o.startedAt < signalledAt);
    const failed = before.filter((o) => o.status !== 200);
    expect(before.length).toBeGreaterThan(12);
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    expect(slowOutcomes.map((o) => o.status)).toEqual([201, 201, 201]);
    expect(await streamText).toMatch(/retry: 500\n\n$/);

    // The evaluations counted before the signal were written on the way out.
    const again = startNodeProcess(env);
    try {
      const restarted = new URL(await again.listening);
      const top = await (
        await fetch(new URL('/v1/projects/default/insights/top-flags', restarted), {
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        })
      ).json();
      expect(top.flags[0]).toMatchObject({ key: 'checkout' });
      expect(top.flags[0].count).toBeGreaterThanOrEqual(before.length);
      // The delivery cut short by the shutdown is still in the outbox, not failed.
      const deliveries = await (
        await fetch(new URL(`/v1/projects/default/webhooks/${webhook.id}/deliveries`, restarted), {
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        })
      ).json();
      const created = (deliveries.items ?? deliveries).find(
        (delivery: { event: string }) => delivery.event === 'flag.created',
      );
      expect(created).toMatchObject({ state: 'pending' });
    } finally {
      await again.stop();
      for (const socket of held) socket.destroy();
      receiver.close();
    }
  });
});
