/**
 * An immutable map that is cheap to change one key at a time: a shared base map plus a small
 * map of changes (undefined: removed). `with` copies only the changes, and folds them into a new
 * base once they outgrow √size, so a change costs O(√n) amortised instead of a copy of the map.
 */
export class PatchedMap<V> {
  readonly #base: ReadonlyMap<string, V>;
  readonly #changes: ReadonlyMap<string, V | undefined>;

  constructor(base: ReadonlyMap<string, V>, changes: ReadonlyMap<string, V | undefined> = new Map()) {
    this.#base = base;
    this.#changes = changes;
  }

  get(key: string): V | undefined {
    // The evaluation hot path: most snapshots have no changes, so skip the second lookup.
    if (this.#changes.size === 0) return this.#base.get(key);
    return this.#changes.has(key) ? this.#changes.get(key) : this.#base.get(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** A new map where `key` holds `value` (undefined: is removed); this one is unchanged. */
  with(key: string, value: V | undefined): PatchedMap<V> {
    const changes = new Map(this.#changes).set(key, value);
    if (changes.size * changes.size <= this.#base.size + 64) return new PatchedMap(this.#base, changes);
    const base = new Map(this.#base);
    for (const [k, v] of changes) {
      if (v === undefined) base.delete(k);
      else base.set(k, v);
    }
    return new PatchedMap(base);
  }
}
