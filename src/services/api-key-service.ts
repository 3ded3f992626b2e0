import { type ApiKey, type Principal, type Role, roleRank } from '../domain/api-key.ts';
import { DomainError, notFound, validationFailed } from '../domain/errors.ts';
import type { Page, PageRequest, Store, StoredApiKey } from '../storage/store.ts';
import { authorizeOrganisation } from './access.ts';
import type { Actor } from './actor.ts';
import { recordAudit } from './audit.ts';
import { newId } from './ids.ts';
import { accessProject, now } from './project-access.ts';
import { generateSecret, hashSecret, sameHash, secretPrefix } from './secrets.ts';

export interface CreateApiKeyInput {
  readonly name: string;
  readonly role: Role;
  readonly environments?: readonly string[] | null;
  readonly expiresAt?: string | null;
}

export interface CreatedApiKey extends ApiKey {
  /** Shown once, in the response that creates the key. */
  readonly secret: string;
}

const publicKey = ({ secretHash: _, ...key }: StoredApiKey): ApiKey => key;

export class ApiKeyService {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  /** The principal behind a secret, or undefined when it is unknown, revoked or expired. */
  async authenticate(
    secret: string,
    at: Date,
  ): Promise<{ principal: Principal; key: StoredApiKey } | undefined> {
    const hash = hashSecret(secret);
    const key = await this.#store.findApiKeyByHash(hash);
    if (key === undefined || !sameHash(key.secretHash, hash)) return undefined;
    if (key.revokedAt !== null) return undefined;
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= at.getTime()) return undefined;
    return { key, principal: principalOf(key) };
  }

  async list(actor: Actor, projectIdOrKey: string | null, page: PageRequest): Promise<Page<ApiKey>> {
    const projectId = await this.#scope(actor, projectIdOrKey);
    return this.#store.listApiKeys(projectId, page);
  }

  async create(
    actor: Actor,
    projectIdOrKey: string | null,
    input: CreateApiKeyInput,
  ): Promise<CreatedApiKey> {
    const projectId = await this.#scope(actor, projectIdOrKey);
    const environments = input.environments ?? null;
    this.#refuseMorePower(actor.principal, input.role, environments);
    if (projectId !== null && environments !== null) {
      const known = new Set((await this.#store.listEnvironments(projectId)).map((e) => e.key));
      const errors = environments
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => !known.has(e))
        .map(({ e, i }) => ({
          path: `/environments/${i}`,
          message: `no environment "${e}" in this project`,
        }));
      if (errors.length > 0) throw validationFailed('The key names unknown environments.', errors);
    }
    if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) {
      throw validationFailed('The key would already be expired.', [
        { path: '/expiresAt', message: 'must be in the future' },
      ]);
    }
    const secret = generateSecret();
    const stored: StoredApiKey = {
      id: newId('key'),
      name: input.name,
      prefix: secretPrefix(secret),
      secretHash: hashSecret(secret),
      projectId,
      role: input.role,
      environments,
      createdAt: now(),
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.#store.transaction(async (tx) => {
      await tx.insertApiKey(stored);
      await recordAudit(tx, actor, projectId, {
        action: 'api_key.created',
        resource: { type: 'api_key', id: stored.id, key: stored.prefix },
        before: null,
        after: publicKey(stored),
      });
    });
    return { ...publicKey(stored), secret };
  }

  async revoke(actor: Actor, keyId: string): Promise<void> {
    const key = await this.#store.findApiKeyById(keyId);
    if (key === undefined) throw notFound(`No API key with id "${keyId}".`);
    if (key.projectId === null) authorizeOrganisation(actor.principal, 'admin');
    else await accessProject(this.#store, actor.principal, key.projectId, 'admin');
    if (key.revokedAt !== null) return;
    const at = now();
    await this.#store.transaction(async (tx) => {
      await tx.revokeApiKey(keyId, at);
      await recordAudit(tx, actor, key.projectId, {
        action: 'api_key.revoked',
        resource: { type: 'api_key', id: key.id, key: key.prefix },
        before: key,
        after: { ...key, revokedAt: at },
      });
    });
  }

  /** Project keys need a project admin; organisation-wide keys an organisation admin. */
  async #scope(actor: Actor, projectIdOrKey: string | null): Promise<string | null> {
    if (projectIdOrKey === null) {
      authorizeOrganisation(actor.principal, 'admin');
      return null;
    }
    return (await accessProject(this.#store, actor.principal, projectIdOrKey, 'admin')).id;
  }

  /** A key cannot mint a key that may do more than itself. */
  #refuseMorePower(principal: Principal, role: Role, environments: readonly string[] | null): void {
    if (roleRank(role) > roleRank(principal.role)) {
      throw new DomainError('forbidden', `A ${principal.role} cannot create a key with the ${role} role.`);
    }
    if (principal.environments !== null) {
      const wider = environments === null || environments.some((e) => !principal.environments?.includes(e));
      if (wider)
        throw new DomainError('forbidden', 'A key cannot create a key for environments it has no access to.');
    }
  }
}

export const principalOf = (key: ApiKey): Principal => ({
  type: 'api_key',
  id: key.id,
  name: key.name,
  role: key.role,
  projectId: key.projectId,
  environments: key.environments,
});
