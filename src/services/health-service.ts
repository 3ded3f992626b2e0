import type { Store } from '../storage/store.ts';

/** Readiness: whether this node can serve writes and cold loads. */
export class HealthService {
  readonly #store: Pick<Store, 'ping'>;

  constructor(store: Pick<Store, 'ping'>) {
    this.#store = store;
  }

  /** Resolves when the database answers; rejects with its error when it does not. */
  databaseReady(): Promise<void> {
    return this.#store.ping();
  }
}
