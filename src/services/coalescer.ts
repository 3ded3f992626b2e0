interface Waiter<V> {
  readonly resolve: (value: V | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Runs lookups in rounds: one `query` per round for every key asked since the previous round
 * began, and at most one round in flight. A caller only ever joins a round that starts after it
 * asked, so it sees every write committed before it asked.
 */
export class Coalescer<K, V> {
  readonly #query: (keys: K[]) => Promise<ReadonlyMap<K, V>>;
  #waiting = new Map<K, Waiter<V>[]>();
  #running = false;

  constructor(query: (keys: K[]) => Promise<ReadonlyMap<K, V>>) {
    this.#query = query;
  }

  get(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiters = this.#waiting.get(key);
      if (waiters === undefined) this.#waiting.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (!this.#running) void this.#run();
    });
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#waiting.size > 0) {
        const round = this.#waiting;
        this.#waiting = new Map();
        try {
          const found = await this.#query([...round.keys()]);
          for (const [key, waiters] of round) for (const w of waiters) w.resolve(found.get(key));
        } catch (error) {
          for (const waiters of round.values()) for (const w of waiters) w.reject(error);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
