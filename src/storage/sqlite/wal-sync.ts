import { open } from 'node:fs/promises';

/**
 * Makes a SQLite database's committed writes durable without the event loop waiting on the disk
 * (decision 2060). The connection runs with `synchronous = NORMAL`, so a commit only hands its
 * pages to the OS; `durable()` then fsyncs the write-ahead log on libuv's thread pool, and a write
 * answers once it resolves: what `synchronous = FULL` guarantees an acknowledged write (it
 * survives a power loss), while evaluations keep being served during the fsync. Writers waiting
 * together share one fsync (a group commit): each waits for the first fsync that started after
 * its writes.
 */
export class WalSync {
  readonly #wal: string;
  /** Writes counted so far (statements that may write, commits included). */
  #written = 0;
  /** The count of writes the last finished fsync covered. */
  #synced = 0;
  #running: Promise<void> | undefined;

  constructor(databasePath: string) {
    this.#wal = `${databasePath}-wal`;
  }

  /** Counts a statement that may have written (synchronously, as it runs). */
  wrote(): void {
    this.#written++;
  }

  /** Resolves once every write counted so far is on disk; rejects when the fsync fails. */
  async durable(): Promise<void> {
    const target = this.#written;
    while (this.#synced < target) {
      this.#running ??= this.#sync();
      await this.#running;
    }
  }

  async #sync(): Promise<void> {
    const through = this.#written;
    try {
      await fsyncFile(this.#wal);
      this.#synced = Math.max(this.#synced, through);
    } finally {
      this.#running = undefined;
    }
  }
}

/** fsync of a file by path; none there (SQLite removed an empty log at close) is nothing to sync. */
async function fsyncFile(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Read-write: some systems refuse to flush a file opened only for reading.
    handle = await open(path, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
