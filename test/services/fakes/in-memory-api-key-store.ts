import type { ApiKey } from '../../../src/domain/api-key.ts';
import type { Page, PageRequest } from '../../../src/domain/page.ts';
import type { ApiKeyRoles } from '../../../src/services/access/api-key-service.ts';
import {
  type ApiKeyStore,
  type StoredApiKey,
  UniqueViolation,
  type WithTransactions,
} from '../../../src/storage/store.ts';
import { InMemoryProjectStore, pageOf } from './in-memory-project-store.ts';

const publicKey = ({ secretHash: _, ...key }: StoredApiKey): ApiKey => key;

/** The project store in memory with API keys beside it: the roles key management names. */
export class InMemoryApiKeyStore
  extends InMemoryProjectStore
  implements WithTransactions<ApiKeyRoles>, ApiKeyStore
{
  #keys = new Map<string, StoredApiKey>();
  /** Moves with every change to any key, as migration 0005's trigger moves it. */
  #revision = 0;

  override async transaction<T>(work: (tx: WithTransactions<ApiKeyRoles>) => Promise<T>): Promise<T> {
    const saved = { keys: new Map(this.#keys), revision: this.#revision };
    try {
      return await super.transaction(() => work(this));
    } catch (error) {
      this.#keys = saved.keys;
      this.#revision = saved.revision;
      throw error;
    }
  }

  async listActiveApiKeys(): Promise<readonly StoredApiKey[]> {
    return [...this.#keys.values()].filter((k) => k.revokedAt === null);
  }

  async apiKeysRevision(): Promise<number> {
    return this.#revision;
  }

  async findApiKeysByHash(secretHashes: readonly string[]): Promise<readonly StoredApiKey[]> {
    return [...this.#keys.values()].filter((k) => secretHashes.includes(k.secretHash));
  }

  async touchApiKeys(lastUsed: ReadonlyMap<string, string>): Promise<void> {
    for (const [id, at] of lastUsed) {
      const key = this.#keys.get(id);
      if (key !== undefined && (key.lastUsedAt === null || key.lastUsedAt < at)) {
        this.#keys.set(id, { ...key, lastUsedAt: at });
      }
    }
  }

  async listApiKeys(projectId: string | null, page: PageRequest): Promise<Page<ApiKey>> {
    const keys = [...this.#keys.values()].filter((k) => k.projectId === projectId).map(publicKey);
    return pageOf(keys, page);
  }

  async findApiKeyById(id: string): Promise<ApiKey | undefined> {
    const key = this.#keys.get(id);
    return key === undefined ? undefined : publicKey(key);
  }

  async insertApiKey(key: StoredApiKey): Promise<void> {
    if ([...this.#keys.values()].some((k) => k.secretHash === key.secretHash)) throw new UniqueViolation();
    this.#keys.set(key.id, key);
    this.#revision += 1;
  }

  async revokeApiKey(id: string, at: string): Promise<void> {
    const key = this.#keys.get(id);
    if (key === undefined) return;
    this.#keys.set(id, { ...key, revokedAt: at });
    this.#revision += 1;
  }
}
