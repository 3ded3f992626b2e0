/**
 * A set of at most `capacity` strings that forgets the oldest when full: what the exposure hook
 * has sent, in bounded memory however many units and flags a long process sees.
 */
export class BoundedSet {
  readonly #capacity: number;
  // A Set iterates in insertion order, so its first value is the oldest.
  readonly #values = new Set<string>();

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#values.size;
  }

  /** Adds `value`; false when it was there already. */
  add(value: string): boolean {
    if (this.#values.has(value)) return false;
    if (this.#values.size >= this.#capacity) {
      const oldest = this.#values.values().next();
      if (!oldest.done) this.#values.delete(oldest.value);
    }
    this.#values.add(value);
    return true;
  }
}
