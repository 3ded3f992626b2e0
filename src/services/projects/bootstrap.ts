import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { newId } from '../../domain/ids.ts';
import { DEFAULT_ENVIRONMENTS } from '../../domain/project.ts';
import type { ApiKeyStore, StoredApiKey, WithTransactions } from '../../storage/store.ts';
import { principalOf } from '../access/api-key-service.ts';
import { recordAudit } from '../core/audit.ts';
import { generateSecret, hashSecret, secretPrefix } from '../core/secrets.ts';
import { createProject, type ProjectRoles } from './project-service.ts';

export interface BootstrapResult {
  /** Set only when this start generated the admin secret: print it once. */
  readonly generatedSecret?: string;
  readonly created: boolean;
}

/**
 * On an empty database: the `default` project (development, production) and the first
 * organisation-wide admin key, whose secret is `adminKey` or a generated one. Later starts do nothing.
 */
export async function bootstrap(
  store: WithTransactions<ApiKeyStore & ProjectRoles>,
  adminKey: string | undefined,
  clock: Clock = systemClock,
): Promise<BootstrapResult> {
  return store.transaction(async (tx) => {
    const [projects, keys] = await Promise.all([
      tx.listProjects({ limit: 1 }),
      tx.listApiKeys(null, { limit: 1 }),
    ]);
    if (projects.items.length > 0 || keys.items.length > 0) return { created: false };
    const secret = adminKey ?? generateSecret();
    const key: StoredApiKey = {
      id: newId('key'),
      name: 'Admin key (first start)',
      prefix: secretPrefix(secret),
      secretHash: hashSecret(secret),
      projectId: null,
      role: 'admin',
      environments: null,
      createdAt: isoTime(clock),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    };
    await tx.insertApiKey(key);
    const { secretHash: _, ...publicKey } = key;
    const actor = { principal: principalOf(key), requestId: 'first-start' };
    await recordAudit(tx, actor, null, {
      at: isoTime(clock),
      action: 'api_key.created',
      resource: { type: 'api_key', id: key.id, key: key.prefix },
      before: null,
      after: publicKey,
    });
    await createProject(
      tx,
      actor,
      { key: 'default', name: 'Default', environments: DEFAULT_ENVIRONMENTS },
      clock,
    );
    return adminKey === undefined ? { created: true, generatedSecret: secret } : { created: true };
  });
}
