/** Listeners by topic (a project id, a key id): a fan-out where one failing listener never stops the others. */
export class ListenerHub<E> {
  readonly #listeners = new Map<string, Set<(event: E) => void>>();

  /** Calls `listener` for each event published on `topic`; returns the unsubscribe. */
  subscribe(topic: string, listener: (event: E) => void): () => void {
    let set = this.#listeners.get(topic);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(topic, set);
    }
    set.add(listener);
    return () => {
      const current = this.#listeners.get(topic);
      if (current === undefined) return;
      current.delete(listener);
      if (current.size === 0) this.#listeners.delete(topic);
    };
  }

  publish(topic: string, event: E): void {
    const set = this.#listeners.get(topic);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own (e.g. a socket that just closed); the others still hear.
      }
    }
  }
}
