import type { Principal } from '../domain/api-key.ts';
import type { Clock } from '../domain/clock.ts';
import type { ServerSecret } from '../domain/server-secret.ts';
import type { KeyRegistry, KnownKey } from '../plane/key-registry.ts';
import { isSyncCredentialFor, syncCredentialKeyId } from '../plane/sync-credential.ts';
import type { ApiKeyStore } from '../storage/store.ts';

/** When a key stops working (ms since the epoch); infinity for a key without expiry. */
export const keyEndsAt = (key: KnownKey): number =>
  key.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(key.expiresAt);

/**
 * FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL (ms), and who hears of each use (a key id): until then,
 * sync credentials derived from the key's hash alone are still taken (decision 1880).
 */
export interface LegacySyncCredentials {
  readonly until: number;
  readonly used: (keyId: string) => void;
}

/**
 * Who an API key's secret (or a credential derived from it) is, from the node's key registry
 * in memory (decision 0201): revoked keys are not in it, and expiry is compared with the clock
 * on every use, so neither needs the change feed. Each use is remembered and written to the
 * database in batches (`flushUsage`), never per request.
 */
export class ApiKeyAuthentication {
  readonly #registry: KeyRegistry;
  readonly #clock: Clock;
  /** Key id → last use (ms), not yet written. */
  #lastUsed = new Map<string, number>();

  /** Sync credentials are derived with a key of it and the API key's hash (docs/decisions/1880). */
  readonly #serverSecret: ServerSecret;
  readonly #legacy: LegacySyncCredentials | undefined;

  constructor(
    registry: KeyRegistry,
    clock: Clock,
    serverSecret: ServerSecret,
    legacy?: LegacySyncCredentials,
  ) {
    this.#registry = registry;
    this.#clock = clock;
    this.#serverSecret = serverSecret;
    this.#legacy = legacy;
  }

  /**
   * The principal behind a secret's hash: synchronous once the keys are in memory; the first
   * call of a node that has not loaded them yet waits for the load.
   */
  principalFor(secretHash: string): Principal | undefined | Promise<Principal | undefined> {
    if (!this.#registry.loaded) return this.#registry.sync().then(() => this.#principal(secretHash));
    return this.#principal(secretHash);
  }

  /**
   * The key behind a flagd sync credential for `scope` (`<project>/<environment>`), or undefined
   * when it is not one, its key is unknown, revoked or expired, or it was derived for another
   * scope (decision 1771).
   */
  async syncKey(credential: string, scope: string): Promise<KnownKey | undefined> {
    const keyId = syncCredentialKeyId(credential);
    if (keyId === undefined) return undefined;
    const key = await this.keyById(keyId);
    if (key === undefined) return undefined;
    const derivationKey = this.#serverSecret.derive('flagd-sync', key.secretHash);
    if (
      !isSyncCredentialFor(credential, derivationKey, scope) &&
      !this.#legacyCredential(credential, key, scope)
    ) {
      return undefined;
    }
    return this.#principal(key.secretHash) === undefined ? undefined : key;
  }

  /** A credential of the derivation before the server secret, while the operator's migration window is open. */
  #legacyCredential(credential: string, key: KnownKey, scope: string): boolean {
    const legacy = this.#legacy;
    if (legacy === undefined || this.#clock() >= legacy.until) return false;
    if (!isSyncCredentialFor(credential, key.secretHash, scope)) return false;
    legacy.used(key.id);
    return true;
  }

  /** A key by id (stream tokens and sync credentials name their key by id), unless revoked or expired. */
  async keyById(keyId: string): Promise<KnownKey | undefined> {
    if (!this.#registry.loaded) await this.#registry.sync();
    const key = this.#registry.findById(keyId);
    return key === undefined || keyEndsAt(key) <= this.#clock() ? undefined : key;
  }

  /** The last use of `keyId` this node has not written yet (ms), if any. */
  pendingUse(keyId: string): number | undefined {
    return this.#lastUsed.get(keyId);
  }

  /** Writes the uses recorded since the last flush (`lastUsedAt`); keeps them for the next try if the write fails. */
  async flushUsage(store: Pick<ApiKeyStore, 'touchApiKeys'>): Promise<void> {
    if (this.#lastUsed.size === 0) return;
    const pending = this.#lastUsed;
    this.#lastUsed = new Map();
    try {
      await store.touchApiKeys(
        new Map([...pending].map(([id, at]) => [id, new Date(at).toISOString()] as const)),
      );
    } catch (error) {
      for (const [id, at] of pending) {
        if ((this.#lastUsed.get(id) ?? 0) < at) this.#lastUsed.set(id, at);
      }
      throw error;
    }
  }

  #principal(secretHash: string): Principal | undefined {
    const key = this.#registry.find(secretHash);
    if (key === undefined) return undefined;
    const now = this.#clock();
    if (keyEndsAt(key) <= now) return undefined;
    this.#lastUsed.set(key.id, now);
    return key.principal;
  }
}
