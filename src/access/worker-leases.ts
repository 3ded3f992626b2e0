import cluster, { type Worker } from 'node:cluster';
import type { Lease } from './redis-leases.ts';

/** The IPC message a worker asks a lease with, and the primary answers with the same `id`. */
const LEASE_MESSAGE = 'flagstaff:rate-limit-lease';

/** Past this wait the primary counts as unanswering, and the worker's buckets are local for a while. */
const ANSWER_TIMEOUT_MS = 250;

interface LeaseRequest {
  readonly type: typeof LEASE_MESSAGE;
  readonly id: number;
  readonly key: string;
  readonly capacity: number;
  readonly perSecond: number;
  readonly now: number;
  readonly want: number;
}

interface LeaseAnswer extends Lease {
  readonly type: typeof LEASE_MESSAGE;
  readonly id: number;
}

/**
 * The buckets the workers share, held by the primary (decision 1988): one per key, refilled
 * continuously like the local ones and taken from in leases, as Redis' script does between nodes.
 */
export class LeaseBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number; fullAt: number }>();

  lease(key: string, capacity: number, perSecond: number, now: number, want: number): Lease {
    const perMs = perSecond / 1000;
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: capacity, at: now, fullAt: now };
      this.#buckets.set(key, bucket);
    }
    if (now > bucket.at) {
      bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
      bucket.at = now;
    }
    const granted = Math.max(0, Math.min(want, Math.floor(bucket.tokens)));
    bucket.tokens -= granted;
    bucket.fullAt = now + (capacity - bucket.tokens) / perMs;
    this.#forgetFull(now);
    return { granted, remaining: bucket.tokens };
  }

  get size(): number {
    return this.#buckets.size;
  }

  /** A bucket that has refilled is what a new one would be: dropped, so keys seen once do not pile up. */
  #forgetFull(now: number): void {
    if (this.#buckets.size < 1024) return;
    for (const [key, bucket] of this.#buckets) if (bucket.fullAt <= now) this.#buckets.delete(key);
  }
}

/** In node:cluster's primary: answers the workers' lease requests from one set of buckets. */
export function serveWorkerLeases(): void {
  const buckets = new LeaseBuckets();
  cluster.on('message', (worker: Worker, message: Partial<LeaseRequest>) => {
    if (message?.type !== LEASE_MESSAGE) return;
    const { id, key, capacity, perSecond, now, want } = message as LeaseRequest;
    const answer: LeaseAnswer = {
      type: LEASE_MESSAGE,
      id,
      ...buckets.lease(key, capacity, perSecond, now, want),
    };
    if (worker.isConnected()) worker.send(answer);
  });
}

/**
 * A worker's side of the shared buckets (FLAGSTAFF_WORKERS, decision 1988): the leases that
 * SharedTokenBuckets takes from Redis between nodes, taken from the primary over IPC instead, so
 * a key's budget is the configured one across the workers however its connections are spread.
 */
export class WorkerLeases {
  readonly #pending = new Map<number, { resolve: (lease: Lease) => void; timer: NodeJS.Timeout }>();
  #next = 0;
  /** The primary did not answer in time: the buckets are local until this time (ms). */
  #unansweredUntil = 0;

  constructor() {
    process.on('message', (message: Partial<LeaseAnswer>) => {
      if (message?.type !== LEASE_MESSAGE) return;
      const pending = this.#pending.get(message.id as number);
      if (pending === undefined) return;
      this.#pending.delete(message.id as number);
      clearTimeout(pending.timer);
      pending.resolve({ granted: message.granted ?? 0, remaining: message.remaining ?? 0 });
    });
  }

  get available(): boolean {
    return process.connected === true && Date.now() >= this.#unansweredUntil;
  }

  lease(key: string, capacity: number, perSecond: number, now: number, want: number): Promise<Lease> {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#unansweredUntil = Date.now() + 1_000;
        reject(new Error('the primary process did not answer a rate-limit lease'));
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      this.#pending.set(id, { resolve, timer });
      const request: LeaseRequest = { type: LEASE_MESSAGE, id, key, capacity, perSecond, now, want };
      process.send?.(request);
    });
  }

  async close(): Promise<void> {
    for (const { timer } of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }
}

/** The leases a worker of FLAGSTAFF_WORKERS=N (N > 1) shares its budgets through; none otherwise. */
export function leasesAcrossWorkers(workers: number): WorkerLeases | undefined {
  return workers > 1 && cluster.isWorker ? new WorkerLeases() : undefined;
}
