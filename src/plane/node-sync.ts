import { backoffMs, type ChangeFeed, type ChangeNotice } from '../storage/change-feed/change-feed.ts';
import type { KeyRegistry } from './key-registry.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type { SnapshotRegistry } from './snapshots.ts';

/** Where the node reports what happens to its database connection (pino's shape). */
export interface SyncLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export type DatabaseState = 'up' | 'down';

/**
 * Keeps one node's evaluation plane (snapshots, project references, API keys) in step with
 * the database (docs/product.md §8): loads everything at start, retrying with backoff while the database
 * is unreachable, then follows the change feed. Remembers whether the database answers, for
 * /readyz; while it does not, the node keeps evaluating from what it loaded last.
 */
export class NodeSync {
  readonly #snapshots: SnapshotRegistry;
  readonly #keys: KeyRegistry;
  #feed: ChangeFeed | undefined;
  #log: SyncLog | undefined;
  #database: DatabaseState = 'up';
  #loaded = false;
  #started = false;
  #closed = false;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  /**
   * A project's notices are applied in order, each after the one before: a burst of writes then
   * finds the node exactly one revision behind at every notice, so each patches its one flag.
   * Applied side by side, the second notice would find the first still reading its flag and
   * reload the whole project (seconds at 10,000 flags), and the first would then reload it again.
   */
  readonly #notices = new KeyedQueue();

  constructor(snapshots: SnapshotRegistry, keys: KeyRegistry) {
    this.#snapshots = snapshots;
    this.#keys = keys;
  }

  /** Whether `start` ran; without it the node loads lazily and hears nothing from other nodes. */
  get started(): boolean {
    return this.#started;
  }

  /** Everything is in memory: the node can evaluate without the database. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Whether the database answered the last time the node asked. */
  get database(): DatabaseState {
    return this.#database;
  }

  /**
   * Loads everything, retrying with backoff (each attempt logged) until the database answers,
   * then follows `feed`. Resolves once loaded; `close` stops the retries.
   */
  async start(feed: ChangeFeed, log: SyncLog): Promise<void> {
    this.#started = true;
    this.#feed = feed;
    this.#log = log;
    for (let attempt = 0; !this.#closed; attempt++) {
      try {
        await this.resync();
        break;
      } catch (error) {
        const retryInMs = backoffMs(attempt);
        log.warn({ err: error, attempt: attempt + 1, retryInMs }, 'database unreachable at start; retrying');
        await new Promise((resolve) => setTimeout(resolve, retryInMs));
      }
    }
    if (this.#closed) return;
    this.#loaded = true;
    feed.start({
      changed: (notice) => this.#changed(notice),
      connection: (state, error) => {
        if (state === 'down') this.#down(error);
      },
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#feed?.close();
  }

  /** Compares everything with the database now; at most one comparison runs, and one waits behind it. */
  resync(): Promise<void> {
    if (this.#queued !== undefined) return this.#queued;
    if (this.#running !== undefined) {
      const queued = this.#running
        .catch(() => undefined)
        .then(() => {
          this.#queued = undefined;
          return this.#run();
        });
      this.#queued = queued;
      return queued;
    }
    return this.#run();
  }

  #run(): Promise<void> {
    const run = (async () => {
      try {
        await this.#snapshots.syncAll();
        await this.#keys.sync();
      } catch (error) {
        this.#down(error);
        throw error;
      }
      this.#up();
    })().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  #changed(notice: ChangeNotice): void {
    const done =
      notice.kind === 'keys'
        ? this.#keys.sync()
        : notice.kind === 'project'
          ? this.#notices.run(notice.projectId, () =>
              this.#snapshots.projectChanged(notice.projectId, notice.revision, notice),
            )
          : this.resync();
    done.then(
      () => this.#up(),
      (error) => this.#down(error),
    );
  }

  #up(): void {
    if (this.#database === 'up') return;
    this.#database = 'up';
    this.#log?.info({}, 'database reachable again; resynchronised');
  }

  #down(error: unknown): void {
    if (this.#database === 'down') return;
    this.#database = 'down';
    this.#log?.warn(
      { err: error },
      'database unreachable; evaluating from memory, writes answer 503 until it returns',
    );
  }
}
