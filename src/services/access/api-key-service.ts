import { authorizeOrganisation, refuseMorePower } from '../../access/access-rules.ts';
import type { ApiKeyAuthentication } from '../../access/api-key-authentication.ts';
import type { ApiKey, Principal, Role } from '../../domain/api-key.ts';
import { isoTime, systemClock } from '../../domain/clock.ts';
import { notFound, validationFailed } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { processServerSecret, type ServerSecret } from '../../domain/server-secret.ts';
import type { KeyRegistry } from '../../plane/key-registry.ts';
import type { KeyRevocations } from '../../plane/key-revocations.ts';
import { deriveSyncCredential, syncScope } from '../../plane/sync-credential.ts';
import type {
  ApiKeyStore,
  Page,
  PageRequest,
  ProjectStore,
  StoredApiKey,
  WithTransactions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { recordAudit } from '../core/audit.ts';
import { accessProject } from '../core/project-access.ts';
import { generateSecret, hashSecret, secretPrefix } from '../core/secrets.ts';
import type { AuditRoles } from '../core/versioned-write.ts';

export interface CreateApiKeyInput {
  readonly name: string;
  readonly role: Role;
  readonly environments?: readonly string[] | null;
  readonly expiresAt?: string | null;
}

/** What a flagd in-process provider is configured with to sync one environment. */
export interface FlagdSyncSelector {
  readonly environment: string;
  readonly selector: string;
}

export interface CreatedApiKey extends ApiKey {
  /** Shown once, in the response that creates it. */
  readonly secret: string;
}

export interface ApiKeyServiceOptions {
  /** Milliseconds since the epoch; tests pass a fake one to move past expiry. */
  readonly clock?: () => number;
  /** Told of each revocation, so the key's open streams end. */
  readonly revocations?: KeyRevocations;
  /** The key sync credentials are derived with (docs/decisions/1880); unset, one made for this process. */
  readonly serverSecret?: ServerSecret;
  /** The node's keys in memory (the plane's): key writes here update it before they answer. */
  readonly registry: KeyRegistry;
  /** Who a secret is, and each key's last use not yet written (admission's). */
  readonly authentication: ApiKeyAuthentication;
}

const publicKey = ({ secretHash: _, ...key }: StoredApiKey): ApiKey => key;

/** The store roles key management names: the keys, their projects, the audit log. */
export type ApiKeyRoles = ApiKeyStore & ProjectStore & AuditRoles;

export class ApiKeyService {
  readonly #store: WithTransactions<ApiKeyRoles>;
  readonly #clock: () => number;
  readonly #revocations: KeyRevocations | undefined;
  readonly #serverSecret: ServerSecret;
  /** Every key not revoked, in memory: authentication never waits on the database (decision 0201). */
  readonly #registry: KeyRegistry;
  readonly #authentication: ApiKeyAuthentication;

  constructor(store: WithTransactions<ApiKeyRoles>, options: ApiKeyServiceOptions) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#revocations = options.revocations;
    this.#serverSecret = options.serverSecret ?? processServerSecret();
    this.#registry = options.registry;
    this.#authentication = options.authentication;
  }

  /** The principal behind a secret, or undefined when it is unknown, revoked or expired. */
  async authenticate(secret: string): Promise<Principal | undefined> {
    return this.#authentication.principalFor(hashSecret(secret));
  }

  /** Writes the uses recorded since the last flush (`lastUsedAt`); keeps them for the next try if the write fails. */
  flushUsage(): Promise<void> {
    return this.#authentication.flushUsage(this.#store);
  }

  async list(actor: Actor, projectIdOrKey: string | null, page: PageRequest): Promise<Page<ApiKey>> {
    const projectId = await this.#scope(actor, projectIdOrKey);
    const listed = await this.#store.listApiKeys(projectId, page);
    // Uses this node has not written yet are newer than what the database holds.
    return { ...listed, items: listed.items.map((key) => this.#withPendingUse(key)) };
  }

  async create(
    actor: Actor,
    projectIdOrKey: string | null,
    input: CreateApiKeyInput,
  ): Promise<CreatedApiKey> {
    const projectId = await this.#scope(actor, projectIdOrKey);
    const environments = input.environments ?? null;
    refuseMorePower(actor.principal, input.role, environments, 'create');
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
    if (input.expiresAt && Date.parse(input.expiresAt) <= this.#clock()) {
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
      createdAt: new Date(this.#clock()).toISOString(),
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.#store.transaction(async (tx) => {
      await tx.insertApiKey(stored);
      await recordAudit(tx, actor, projectId, {
        at: isoTime(this.#clock),
        action: 'api_key.created',
        resource: { type: 'api_key', id: stored.id, key: stored.prefix },
        before: null,
        after: publicKey(stored),
      });
    });
    this.#registry.add(stored);
    return { ...publicKey(stored), secret };
  }

  /**
   * The flagd sync selectors of a key, one per environment of the project it may read
   * (`project` names it for an organisation-wide key): `<project>/<environment>#<sync credential>`,
   * credentials that can read that environment's flag definitions and nothing else (docs/decisions/1771).
   */
  async flagdSyncSelectors(
    actor: Actor,
    keyId: string,
    project: string | undefined,
  ): Promise<readonly FlagdSyncSelector[]> {
    const key = await this.#store.findApiKeyById(keyId);
    if (key === undefined || key.revokedAt !== null) throw notFound(`No API key with id "${keyId}".`);
    await this.#authorizeKeyAdmin(actor, key, 'read the sync credentials of');
    if (key.projectId === null && project === undefined) {
      throw validationFailed(
        'An organisation-wide key syncs a project of your choice: add ?project=<key or id>.',
        [{ path: 'querystring:/project', message: 'is required with an organisation-wide key' }],
      );
    }
    const { id, key: projectKey } = await accessProject(
      this.#store,
      actor,
      key.projectId ?? (project as string),
      'admin',
    );
    if (key.projectId !== null && key.projectId !== id) throw notFound(`No API key with id "${keyId}".`);
    // The secret hash is in the node's key registry (the database port does not hand it out by id).
    if (this.#registry.findById(key.id) === undefined) await this.#registry.sync();
    const secretHash = this.#registry.findById(key.id)?.secretHash;
    if (secretHash === undefined) throw notFound(`No API key with id "${keyId}".`);
    const derivationKey = this.#serverSecret.derive('flagd-sync', secretHash);
    const environments = await this.#store.listEnvironments(id);
    return environments
      .filter((e) => key.environments === null || key.environments.includes(e.key))
      .map(({ key: environment }) => {
        const scope = syncScope(projectKey, environment);
        return { environment, selector: `${scope}#${deriveSyncCredential(key.id, derivationKey, scope)}` };
      });
  }

  /** Revokes a key; the next request with it on this node is a 401, on other nodes within 1 s (the change feed). Revoking a revoked key changes nothing. */
  async revoke(actor: Actor, keyId: string): Promise<void> {
    const key = await this.#store.findApiKeyById(keyId);
    if (key === undefined) throw notFound(`No API key with id "${keyId}".`);
    await this.#authorizeKeyAdmin(actor, key, 'revoke');
    if (key.revokedAt !== null) return;
    const at = new Date(this.#clock()).toISOString();
    await this.#store.transaction(async (tx) => {
      await tx.revokeApiKey(keyId, at);
      await recordAudit(tx, actor, key.projectId, {
        at: isoTime(this.#clock),
        action: 'api_key.revoked',
        resource: { type: 'api_key', id: key.id, key: key.prefix },
        before: key,
        after: { ...key, revokedAt: at },
      });
    });
    this.#registry.remove(keyId);
    this.#revocations?.revoked(keyId);
  }

  /** Managing a key: an admin of its project (organisation-wide keys: of the organisation), with at least its power. */
  async #authorizeKeyAdmin(
    actor: Actor,
    key: ApiKey,
    verb: 'revoke' | 'read the sync credentials of',
  ): Promise<void> {
    if (key.projectId === null) authorizeOrganisation(actor.principal, 'admin');
    else await accessProject(this.#store, actor, key.projectId, 'admin');
    refuseMorePower(actor.principal, key.role, key.environments, verb);
  }

  /** Project keys need a project admin; organisation-wide keys an organisation admin. */
  async #scope(actor: Actor, projectIdOrKey: string | null): Promise<string | null> {
    if (projectIdOrKey === null) {
      authorizeOrganisation(actor.principal, 'admin');
      return null;
    }
    return (await accessProject(this.#store, actor, projectIdOrKey, 'admin')).id;
  }

  #withPendingUse(key: ApiKey): ApiKey {
    const pending = this.#authentication.pendingUse(key.id);
    if (pending === undefined) return key;
    const at = new Date(pending).toISOString();
    return key.lastUsedAt !== null && key.lastUsedAt >= at ? key : { ...key, lastUsedAt: at };
  }
}

export { principalOf } from '../../plane/key-registry.ts';
