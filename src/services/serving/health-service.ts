import type { DatabaseState, NodeSync } from '../../plane/node-sync.ts';
import type { Store } from '../../storage/store.ts';

export interface Readiness {
  /** The node can evaluate: everything is loaded, or (not started) it loads lazily and the database answers. */
  readonly ready: boolean;
  /** The node is shutting down: load balancers should send nothing more (docs/decisions/1731). */
  readonly draining: boolean;
  readonly database: DatabaseState;
}

/** Readiness (docs/product.md §1, §8): whether this node can evaluate, and whether the database answers. */
export class HealthService {
  readonly #store: Pick<Store, 'ping'>;
  readonly #sync: NodeSync | undefined;
  #draining = false;

  constructor(store: Pick<Store, 'ping'>, sync?: NodeSync) {
    this.#store = store;
    this.#sync = sync;
  }

  /**
   * A node that follows the change feed is ready once loaded, whatever the database does; one
   * that loads lazily (tests, embedded use) can evaluate only while the database answers.
   */
  async readiness(): Promise<Readiness> {
    const draining = this.#draining;
    const sync = this.#sync;
    if (sync?.started) return { ready: sync.loaded && !draining, draining, database: sync.database };
    try {
      await this.#store.ping();
      return { ready: !draining, draining, database: 'up' };
    } catch {
      return { ready: false, draining, database: 'down' };
    }
  }

  /** From now on the node is not ready: it is shutting down. */
  startDraining(): void {
    this.#draining = true;
  }
}
