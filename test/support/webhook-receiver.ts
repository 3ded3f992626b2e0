import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  readonly delivery: string;
  readonly event: string;
  readonly body: { type: string; projectId: string; event: { id: string; resource: { key: string } } };
  readonly signatureValid: boolean;
}

/** A receiver that checks every signature the way the docs tell users to. */
export class Receiver {
  readonly received: Received[] = [];
  /** Decides each answer: a status, or 'hang' to never answer. */
  answer: (request: IncomingMessage) => number | 'hang' = () => 200;
  /** How long to wait before answering, to play a receiver that takes its time. */
  delayMs = 0;
  readonly #hanging: ServerResponse[] = [];
  readonly #server: Server;
  url = '';
  secret = '';

  constructor() {
    this.#server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk) => {
        raw += chunk;
      });
      request.on('end', () => {
        const header = String(request.headers['flagstaff-signature'] ?? '');
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
        const expected = createHmac('sha256', this.secret).update(`${t}.${raw}`).digest('hex');
        this.received.push({
          delivery: String(request.headers['flagstaff-delivery']),
          event: String(request.headers['flagstaff-event']),
          body: JSON.parse(raw),
          signatureValid: v1 === expected && Math.abs(Date.now() / 1000 - Number(t)) < 300,
        });
        const answer = this.answer(request);
        if (answer === 'hang') this.#hanging.push(response);
        else if (this.delayMs > 0) setTimeout(() => response.writeHead(answer).end(), this.delayMs);
        else response.writeHead(answer).end();
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  /** Resource keys of the events received, first arrival of each delivery only. */
  keys(): string[] {
    const seen = new Set<string>();
    return this.received
      .filter((r) => !seen.has(r.body.event.id) && seen.add(r.body.event.id))
      .map((r) => r.body.event.resource.key);
  }

  async stop(): Promise<void> {
    for (const response of this.#hanging) response.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
