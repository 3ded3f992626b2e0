import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { Database } from '../sql/database.ts';
import { type ChangeFeed, type ChangeFeedListener, RESYNC } from './change-feed.ts';

/** docs/product.md §8 asks for at least every 100 ms. */
const WATCH_EVERY_MS = 50;

/**
 * SQLite's change feed: `PRAGMA data_version` on the node's own connection moves whenever
 * another connection (the CLI, a second process on the same file) commits, so polling it
 * every 50 ms sees their writes. The node's own writes update it in place and do not move it.
 */
export class SqliteChangeFeed implements ChangeFeed {
  readonly #db: Kysely<Database>;
  /** Built once: 20 readings a second need not build the same query 20 times. */
  readonly #dataVersion: CompiledQuery<{ data_version: number }>;
  #timer: NodeJS.Timeout | undefined;
  #version: number | undefined;
  #busy = false;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#dataVersion = sql<{ data_version: number }>`pragma data_version`.compile(db);
  }

  start(listener: ChangeFeedListener): void {
    this.#timer = setInterval(() => void this.#watch(listener), WATCH_EVERY_MS);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
  }

  async #watch(listener: ChangeFeedListener): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const { rows } = await this.#db.executeQuery(this.#dataVersion);
      const version = Number(rows[0]?.data_version);
      // The first reading counts as a change: writes made since the listener last looked are not missed.
      if (version !== this.#version) listener.changed(RESYNC);
      this.#version = version;
    } catch (error) {
      listener.connection('down', error);
    } finally {
      this.#busy = false;
    }
  }
}
