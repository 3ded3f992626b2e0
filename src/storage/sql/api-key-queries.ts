import type { ApiKeyStore } from '../store.ts';
import { apiKeyFromRow, apiKeyToRow, withoutSecret } from './rows.ts';
import { findOne, mapUnique, paged, type SqlContext } from './sql-context.ts';

/** API keys: looked up by secret hash on requests, managed by admins. */
export function apiKeyQueries({ db, atomically }: SqlContext): ApiKeyStore {
  return {
    async listActiveApiKeys() {
      const rows = await db.selectFrom('api_keys').selectAll().where('revoked_at', 'is', null).execute();
      return rows.map(apiKeyFromRow);
    },

    async apiKeysRevision() {
      const row = await db
        .selectFrom('change_counters')
        .select('revision')
        .where('name', '=', 'api_keys')
        .executeTakeFirstOrThrow();
      return Number(row.revision);
    },

    async findApiKeysByHash(secretHashes) {
      if (secretHashes.length === 0) return [];
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('secret_hash', 'in', [...secretHashes])
        .execute();
      return rows.map(apiKeyFromRow);
    },

    async touchApiKeys(lastUsed) {
      if (lastUsed.size === 0) return;
      await atomically(async ({ db }) => {
        for (const [id, at] of lastUsed) {
          await db
            .updateTable('api_keys')
            .set({ last_used_at: at })
            .where('id', '=', id)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
            .execute();
        }
      });
    },

    listApiKeys: (projectId, page) =>
      paged(
        db
          .selectFrom('api_keys')
          .selectAll()
          .where('project_id', projectId === null ? 'is' : '=', projectId),
        { column: 'id', direction: 'asc', of: (r) => r.id },
        page,
        (rows) => rows.map((r) => withoutSecret(apiKeyFromRow(r))),
      ),

    findApiKeyById: (id) =>
      findOne(db.selectFrom('api_keys').selectAll().where('id', '=', id), (r) =>
        withoutSecret(apiKeyFromRow(r)),
      ),

    async insertApiKey(key) {
      await mapUnique(db.insertInto('api_keys').values(apiKeyToRow(key)).execute());
    },

    async revokeApiKey(id, at) {
      await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).execute();
    },
  };
}
