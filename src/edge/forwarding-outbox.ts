import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Exposure } from '../domain/exposure.ts';
import type { EdgeBatch } from '../services/serving/edge-upstream.ts';
import type { StoredEvent } from '../storage/event-store.ts';
import type { EvaluationCount } from '../storage/insights-store.ts';

/** Where the outbox reports what it does (pino's shape). */
export interface OutboxLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface OutboxOptions {
  /** FLAGSTAFF_EDGE_CACHE/outbox: one file per batch, so a `kill -9` loses none that was answered. */
  readonly directory: string;
  /**
   * Sends one batch upstream: `taken`, or `refused` for good (upstream answered 4xx: sent again,
   * it would be refused again, so it is dropped and counted); throws while upstream is away.
   */
  readonly send: (batch: EdgeBatch) => Promise<'taken' | 'refused'>;
  /** FLAGSTAFF_EDGE_BUFFER_BATCHES: batches kept on disk at most; the oldest go first. Default 10,000. */
  readonly maxBatches?: number;
  readonly log: OutboxLog;
  /** Told how many items (events, exposures, counts) each dropped batch held, for /metrics. */
  readonly dropped: (items: number) => void;
}

const DEFAULT_MAX_BATCHES = 10_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

/** `<sequence>-<items>.json`: sorted by name is oldest first; the item count is known without reading. */
const FILE = /^(\d{16})-(\d+)\.json$/;

/**
 * What an edge forwards upstream (SPEC §14, decision 1982): each batch is written to disk (temp +
 * rename) before it counts as taken, then sent oldest first with its id, so a retry is counted
 * once. While upstream is away the files wait; past the bound the oldest are dropped and counted.
 * Never in the way of an evaluation: evaluations only add to the counters flushed here.
 */
export class ForwardingOutbox {
  readonly #options: OutboxOptions;
  readonly #maxBatches: number;
  #sequence = Date.now() * 1000;
  #files: string[] | undefined;
  #running = false;
  /** Ends the idle wait: a batch arrived. */
  #wake: (() => void) | undefined;
  /** Ends a backoff: the outbox closes (new batches do not cut a backoff short). */
  #stopPause: (() => void) | undefined;
  #closed = false;
  #sending: Promise<void> | undefined;

  constructor(options: OutboxOptions) {
    this.#options = options;
    this.#maxBatches = options.maxBatches ?? DEFAULT_MAX_BATCHES;
  }

  /** Batches on disk, waiting to be sent. */
  get waiting(): number {
    return this.#files?.length ?? 0;
  }

  /** Creates the directory and lists what a previous run left; throws when it cannot be written. */
  async open(): Promise<void> {
    await mkdir(this.#options.directory, { recursive: true });
    const probe = join(this.#options.directory, `.probe-${randomUUID()}`);
    await writeFile(probe, '');
    await unlink(probe);
    const names = await readdir(this.#options.directory);
    this.#files = names.filter((name) => FILE.test(name)).sort();
    const last = this.#files.at(-1);
    if (last !== undefined) this.#sequence = Math.max(this.#sequence, Number(last.slice(0, 16)));
  }

  /** Writes one batch durably; resolves once it is on disk. Empty batches are not written. */
  async add(items: {
    readonly events?: readonly StoredEvent[];
    readonly exposures?: readonly Exposure[];
    readonly counts?: readonly EvaluationCount[];
  }): Promise<void> {
    const batch: EdgeBatch = {
      id: randomUUID(),
      events: items.events ?? [],
      exposures: items.exposures ?? [],
      counts: items.counts ?? [],
    };
    const size = batch.events.length + batch.exposures.length + batch.counts.length;
    if (size === 0) return;
    const name = `${String(++this.#sequence).padStart(16, '0')}-${size}.json`;
    const path = join(this.#options.directory, name);
    await writeFile(`${path}.tmp`, JSON.stringify(batch));
    await rename(`${path}.tmp`, path);
    const files = this.#files ?? [];
    this.#files = files;
    files.push(name);
    while (files.length > this.#maxBatches) {
      const oldest = files.shift() as string;
      await unlink(join(this.#options.directory, oldest)).catch(() => undefined);
      this.#options.dropped(Number(FILE.exec(oldest)?.[2] ?? 0));
    }
    this.#wake?.();
  }

  /** Sends what waits, oldest first, retrying with backoff while upstream does not take it. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#sending = this.#loop();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    this.#stopPause?.();
    await this.#sending;
  }

  async #loop(): Promise<void> {
    let failures = 0;
    while (!this.#closed) {
      const name = this.#files?.[0];
      if (name === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
        continue;
      }
      const path = join(this.#options.directory, name);
      try {
        const batch = JSON.parse(await readFile(path, 'utf8')) as EdgeBatch;
        if ((await this.#options.send(batch)) === 'refused') {
          this.#options.log.warn({ batch: batch.id }, 'upstream refused a forwarded batch; dropped');
          this.#options.dropped(Number(FILE.exec(name)?.[2] ?? 0));
        }
        if (failures > 0)
          this.#options.log.info({ waiting: this.waiting }, 'upstream takes forwarded batches again');
        failures = 0;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) {
          if (failures === 0) {
            this.#options.log.warn(
              { err: error, waiting: this.waiting },
              'forwarding upstream failed; batches wait on disk',
            );
          }
          failures++;
          await this.#pause(Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(failures, 8)));
          continue;
        }
      }
      // Sent, or unreadable (a file cut by a crash before its rename cannot exist: only whole files are named).
      if (this.#files?.[0] === name) this.#files.shift();
      await unlink(path).catch(() => undefined);
    }
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.#stopPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
