import type { ApiKey, Principal } from '../domain/api-key.ts';
import type { Store, StoredApiKey } from '../storage/store.ts';
import type { KeyRevocations } from './key-revocations.ts';

/** What authentication finds for a hash: the key, or nothing (unknown or revoked). */
export type KnownKey = StoredApiKey & { readonly principal: Principal };

/**
 * Every API key that is not revoked, in memory, keyed by secret hash: evaluation requests
 * authenticate with one synchronous map lookup, whatever the database is doing (decision 0201).
 * Local key writes update it before they answer; the change feed reloads it when another node
 * or the CLI changed a key (the `api_keys` counter moved).
 */
export class KeyRegistry {
  readonly #store: Pick<Store, 'listActiveApiKeys' | 'apiKeysRevision'>;
  #keys: ReadonlyMap<string, KnownKey> | undefined;
  /** The same keys by id, built when first asked after a change. */
  #byId: Map<string, KnownKey> | undefined;
  /** The counter value the map reflects; -1 until loaded. */
  #revision = -1;
  #loading: Promise<void> | undefined;
  /** Moves with every local change, so a reload that overlapped one reads again rather than undo it. */
  #generation = 0;

  /** Told of every key that leaves the map (revoked here, elsewhere, or with its project), so its streams end. */
  readonly #revocations: KeyRevocations | undefined;
  /** Told of every change to the map: edges following this node receive their keys again (SPEC §14). */
  readonly #watchers = new Set<() => void>();

  constructor(store: Pick<Store, 'listActiveApiKeys' | 'apiKeysRevision'>, revocations?: KeyRevocations) {
    this.#store = store;
    this.#revocations = revocations;
  }

  get loaded(): boolean {
    return this.#keys !== undefined;
  }

  /** The key behind a secret's hash when it is known and not revoked; expiry is the caller's to check. */
  find(secretHash: string): KnownKey | undefined {
    // Constant time where it matters: the map compares SHA-256 digests of what was presented,
    // and how many leading digits of a digest match says nothing about the secret (decision 0201).
    return this.#keys?.get(secretHash);
  }

  /** A key by its id when known and not revoked (stream tokens and sync credentials name the key by id). */
  findById(keyId: string): KnownKey | undefined {
    if (this.#keys === undefined) return undefined;
    // Indexed on first use after each change: sync clients reconnecting must not scan every key.
    this.#byId ??= new Map([...this.#keys.values()].map((key) => [key.id, key]));
    return this.#byId.get(keyId);
  }

  /** Every key known and not revoked (what an edge's stream sends, narrowed to its scope). */
  list(): readonly KnownKey[] {
    return this.#keys === undefined ? [] : [...this.#keys.values()];
  }

  /** Calls `watcher` after every change to the keys; returns the unsubscribe. */
  watch(watcher: () => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  #changed(): void {
    for (const watcher of this.#watchers) watcher();
  }

  /** Loads every key unless the counter says the map is current; one load at a time. */
  sync(): Promise<void> {
    this.#loading ??= this.#reload().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /** A key this node just created: usable on its next request, before any feed says so. */
  add(key: StoredApiKey): void {
    if (this.#keys === undefined) return;
    this.#generation++;
    this.#keys = new Map(this.#keys).set(key.secretHash, known(key));
    this.#byId = undefined;
    this.#changed();
  }

  /** A key this node just revoked: refused from its next request on. */
  remove(keyId: string): void {
    if (this.#keys === undefined) return;
    this.#generation++;
    this.#replace(new Map([...this.#keys].filter(([, key]) => key.id !== keyId)));
  }

  /** Keys of a project this node just deleted (their rows went with it by cascade). */
  removeProject(projectId: string): void {
    if (this.#keys === undefined) return;
    this.#generation++;
    this.#replace(new Map([...this.#keys].filter(([, key]) => key.projectId !== projectId)));
  }

  /** Installs a new map, announcing the keys it no longer holds. */
  #replace(keys: ReadonlyMap<string, KnownKey>): void {
    const before = this.#keys;
    this.#keys = keys;
    this.#byId = undefined;
    this.#changed();
    if (before === undefined || this.#revocations === undefined) return;
    const kept = new Set([...keys.values()].map((key) => key.id));
    for (const key of before.values()) if (!kept.has(key.id)) this.#revocations.revoked(key.id);
  }

  async #reload(): Promise<void> {
    for (;;) {
      const generation = this.#generation;
      const revision = await this.#store.apiKeysRevision();
      if (revision === this.#revision && this.#keys !== undefined) return;
      const keys = await this.#store.listActiveApiKeys();
      if (generation !== this.#generation) continue;
      this.#replace(new Map(keys.map((key) => [key.secretHash, known(key)])));
      this.#revision = revision;
      return;
    }
  }
}

const known = (key: StoredApiKey): KnownKey => ({ ...key, principal: principalOf(key) });

export const principalOf = (key: ApiKey): Principal => ({
  type: 'api_key',
  id: key.id,
  name: key.name,
  role: key.role,
  projectId: key.projectId,
  environments: key.environments,
});
