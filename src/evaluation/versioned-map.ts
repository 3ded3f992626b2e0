/**
 * An immutable map whose next version costs O(changed keys), not O(size): what lets a snapshot of
 * 10,000 flags take a one-flag write without copying 10,000 entries (decision 1600).
 *
 * All versions made from one another share one mutable `Map`, which always holds the newest
 * version's entries, so the newest version (the one evaluation reads) costs a plain `Map.get`.
 * Making a new version from the newest updates that `Map` in place and leaves the superseded
 * version what it needs to stay as it was: the values it had for the changed keys, and a link to
 * its successor. An older version reads through those links (one step per later version that
 * changed other keys), so it stays consistent for whoever still holds it; nothing links back
 * from new to old, so old versions are collected once no one holds them. Making a version from
 * one that is not the newest (a branch) copies it first: correct, and O(size), as before.
 *
 * Values are never `undefined`: in an update, `undefined` means "remove the key".
 */
export class VersionedMap<K, V> {
  /** The entries of the newest version of this family, shared by every version of it. */
  readonly #newest: Map<K, V>;
  /** The version made from this one; undefined while this one is the newest. */
  #successor: VersionedMap<K, V> | undefined;
  /** Once superseded: this version's value for each key its successor changed (undefined: absent). */
  #before: Map<K, V | undefined> | undefined;
  readonly size: number;

  private constructor(newest: Map<K, V>, size: number) {
    this.#newest = newest;
    this.size = size;
  }

  static of<K, V>(entries: Iterable<readonly [K, V]> = []): VersionedMap<K, V> {
    const map = new Map<K, V>(entries);
    return new VersionedMap(map, map.size);
  }

  get(key: K): V | undefined {
    return this.#successor === undefined ? this.#newest.get(key) : this.#getSuperseded(key);
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  #getSuperseded(key: K): V | undefined {
    for (let version: VersionedMap<K, V> = this; ; ) {
      const successor = version.#successor;
      if (successor === undefined) return this.#newest.get(key);
      const before = version.#before as Map<K, V | undefined>;
      if (before.has(key)) return before.get(key);
      version = successor;
    }
  }

  /** This version's entries, in no particular order. */
  entries(): IterableIterator<[K, V]> {
    return this.#successor === undefined ? this.#newest.entries() : this.#copy().entries();
  }

  /** A new version with each key set to its value, or removed where the value is undefined; this one is unchanged. */
  updated(changes: Iterable<readonly [K, V | undefined]>): VersionedMap<K, V> {
    const entries = this.#successor === undefined ? this.#newest : this.#copy();
    const before = new Map<K, V | undefined>();
    let size = this.size;
    for (const [key, value] of changes) {
      const had = entries.get(key);
      if (!before.has(key)) before.set(key, had);
      if (value === undefined) {
        if (had !== undefined) {
          entries.delete(key);
          size--;
        }
      } else {
        if (had === undefined) size++;
        entries.set(key, value);
      }
    }
    const next = new VersionedMap(entries, size);
    // A copy is a family of its own: this version (a branch point) keeps reading the shared map.
    if (entries === this.#newest) {
      this.#before = before;
      this.#successor = next;
    }
    return next;
  }

  /** This version's entries as a new Map: the newest entries, with the superseded values put back, newest first. */
  #copy(): Map<K, V> {
    const chain: Map<K, V | undefined>[] = [];
    for (let version: VersionedMap<K, V> = this; version.#successor !== undefined; ) {
      chain.push(version.#before as Map<K, V | undefined>);
      version = version.#successor;
    }
    const entries = new Map(this.#newest);
    for (let i = chain.length - 1; i >= 0; i--) {
      for (const [key, value] of chain[i] as Map<K, V | undefined>) {
        if (value === undefined) entries.delete(key);
        else entries.set(key, value);
      }
    }
    return entries;
  }
}
