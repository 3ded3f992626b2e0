import type { Server as HttpServer } from 'node:http';
import { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * A request a client wrote just before the signal may still sit unread in its socket: such a
 * connection looks idle. This long after the signal, idle connections are closed.
 */
const SETTLE_MS = 500;

/**
 * Graceful shutdown of the HTTP server (docs/decisions/1731-graceful-shutdown.md): at the
 * signal the node stops accepting connections; the open ones stay until the requests on them
 * are answered (each answer says `Connection: close`), for at most the grace period, and only
 * then do Fastify's close hooks release the database.
 */
export class GracefulShutdown {
  readonly #server: HttpServer;
  readonly #graceMs: number;
  readonly #log: FastifyInstance['log'];
  #startedAt = 0;
  #connectionsEnded: Promise<void> | undefined;

  /** Registers the drain as a preClose hook, so it runs before the store closes: call before listen. */
  constructor(app: FastifyInstance, graceMs: number) {
    this.#server = app.server;
    this.#graceMs = graceMs;
    this.#log = app.log;
    app.addHook('preClose', () => this.#drain());
  }

  /** At the signal: no new connections from now on; those open stay. Then call `app.close()`. */
  begin(): void {
    if (this.#connectionsEnded !== undefined || !this.#server.listening) return;
    this.#startedAt = performance.now();
    const server = this.#server;
    // 'close' comes once the listener is closed and every connection has ended.
    this.#connectionsEnded = new Promise((resolve) => server.once('close', () => resolve()));
    // net's close, not http's: http's also drops idle keep-alive connections at once, racing
    // requests their clients sent just before the signal.
    Server.prototype.close.call(server);
  }

  async #drain(): Promise<void> {
    const ended = this.#connectionsEnded;
    if (ended === undefined) return; // closed without a signal (tests, embedding): Fastify's own close
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    this.#server.closeIdleConnections();
    const remainingMs = Math.max(0, this.#graceMs - (performance.now() - this.#startedAt));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace over'>((resolve) => {
      timer = setTimeout(() => resolve('grace over'), remainingMs);
    });
    if ((await Promise.race([ended, graceOver])) === 'grace over') {
      this.#log.warn(
        { graceMs: this.#graceMs },
        'requests still in flight when FLAGSTAFF_SHUTDOWN_GRACE ran out; closing their connections',
      );
      this.#server.closeAllConnections();
    }
    clearTimeout(timer);
  }
}
