import pg from 'pg';
import { backoffMs, type ChangeFeed, type ChangeFeedListener, RESYNC } from './change-feed.ts';
import { NoticeParts } from './notice-payloads.ts';

/** The safety net: revisions are compared this often even when no notification arrives. */
const SAFETY_NET_MS = 5000;

/**
 * PostgreSQL's change feed: `LISTEN` on a connection of its own, taken from the pool, for the
 * notifications the triggers of migration 0005 send when a write commits. The connection is
 * re-established with backoff whenever it fails; every (re)connect and every 5 s ask for a
 * full comparison, so notifications lost meanwhile cost at most 5 s.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly #pool: pg.Pool;
  #listener: ChangeFeedListener | undefined;
  #client: pg.PoolClient | undefined;
  #attempt = 0;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #safetyNet: NodeJS.Timeout | undefined;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  start(listener: ChangeFeedListener): void {
    this.#listener = listener;
    this.#safetyNet = setInterval(() => listener.changed(RESYNC), SAFETY_NET_MS);
    this.#safetyNet.unref();
    void this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#safetyNet);
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    client?.release(true);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      const taken = client;
      // Errors of this connection are ours to handle: unhandled, they would end the process.
      taken.on('error', (error) => this.#lost(taken, error));
      taken.on('end', () => this.#lost(taken, new Error('the LISTEN connection ended')));
      const { rows } = await taken.query<{ schema: string }>('select current_schema() as schema');
      const channel = `flagstaff_${rows[0]?.schema ?? 'public'}`;
      // Per connection: a notice cut off by a lost connection is not finished by the next one.
      const parts = new NoticeParts();
      taken.on('notification', (message) => {
        if (message.channel !== channel) return;
        const notice = parts.add(message.payload);
        if (notice !== undefined) this.#listener?.changed(notice);
      });
      await taken.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (this.#closed) {
        taken.release(true);
        return;
      }
      this.#client = taken;
      this.#attempt = 0;
      this.#listener?.connection('up');
      this.#listener?.changed(RESYNC);
    } catch (error) {
      client?.release(true);
      this.#listener?.connection('down', error);
      this.#reconnectLater();
    }
  }

  #lost(client: pg.PoolClient, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.release(true);
    this.#listener?.connection('down', error);
    this.#reconnectLater();
  }

  #reconnectLater(): void {
    if (this.#closed) return;
    this.#retry = setTimeout(() => void this.#connect(), backoffMs(this.#attempt++));
    this.#retry.unref();
  }
}
