import { type Kysely, type SelectQueryBuilder, sql, type Transaction } from 'kysely';
import type { ApiKey } from '../../domain/api-key.ts';
import type { AuditEvent } from '../../domain/audit-event.ts';
import type { Flag, FlagEnvironment } from '../../domain/flag.ts';
import type { Environment, Project } from '../../domain/project.ts';
import type { Segment } from '../../domain/segment.ts';
import type { ApprovalStore } from '../approval-store.ts';
import type { ScheduledChangeStore } from '../scheduled-change-store.ts';
import {
  type AccountFilter,
  type AuditFilter,
  type FlagFilter,
  type InvitationFilter,
  type Page,
  type PageRequest,
  type Store,
  type StoredAccount,
  type StoredApiKey,
  type StoredInvitation,
  type StoredSession,
  UniqueViolation,
} from '../store.ts';
import { SqlApprovals } from './approval-sql.ts';
import type { Database } from './database.ts';
import {
  accountFromRow,
  accountToRow,
  apiKeyFromRow,
  apiKeyToRow,
  auditEventFromRow,
  auditEventToRow,
  environmentFromRow,
  environmentToRow,
  flagEnvironmentFromRow,
  flagEnvironmentToColumns,
  flagFromRow,
  flagToRow,
  invitationFromRow,
  invitationToRow,
  projectFromRow,
  projectToRow,
  segmentFromRow,
  segmentToRow,
  sessionFromRow,
  sessionToRow,
  withoutSecret,
} from './rows.ts';
import { SqlScheduledChanges } from './scheduled-change-sql.ts';

/** SQLite reports SQLITE_CONSTRAINT_UNIQUE (2067) or _PRIMARYKEY (1555); PostgreSQL 23505. */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { errcode?: number; code?: string };
  return e?.errcode === 2067 || e?.errcode === 1555 || e?.code === '23505';
}

async function mapUnique<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isUniqueViolation(error)) throw new UniqueViolation((error as Error).message);
    throw error;
  }
}

const encodeCursor = (value: string) => Buffer.from(value).toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString();

/** Keyset paging over one unique text column: fetch one more than asked to learn whether more remain. */
export async function paged<Row, T>(
  // biome-ignore lint/suspicious/noExplicitAny: the query's table is whatever the caller selected from
  query: SelectQueryBuilder<Database, any, Row>,
  column: string,
  direction: 'asc' | 'desc',
  page: PageRequest,
  cursorOf: (row: Row) => string,
  map: (rows: Row[]) => Promise<T[]> | T[],
): Promise<Page<T>> {
  let q = query;
  if (page.cursor) q = q.where(sql.ref(column), direction === 'asc' ? '>' : '<', decodeCursor(page.cursor));
  const rows = await q
    .orderBy(sql.ref(column), direction)
    .limit(page.limit + 1)
    .execute();
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const items = await map(kept);
  const last = kept.at(-1);
  return more && last !== undefined ? { items, nextCursor: encodeCursor(cursorOf(last)) } : { items };
}

/** The one Store adapter: Kysely queries that run unchanged on SQLite and PostgreSQL. */
export class SqlStore implements Store {
  readonly #db: Kysely<Database>;
  readonly #inTransaction: boolean;

  constructor(db: Kysely<Database> | Transaction<Database>, inTransaction = false) {
    this.#db = db;
    this.#inTransaction = inTransaction;
  }

  get scheduledChanges(): ScheduledChangeStore {
    return new SqlScheduledChanges(this.#db);
  }

  get approvals(): ApprovalStore {
    return new SqlApprovals(this.#db);
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.#atomically(work);
  }

  /** Joins the open transaction or starts one: methods of several statements must still be atomic. */
  #atomically<T>(work: (store: SqlStore) => Promise<T>): Promise<T> {
    if (this.#inTransaction) return work(this);
    return this.#db.transaction().execute((trx) => work(new SqlStore(trx, true)));
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  close(): Promise<void> {
    return this.#db.destroy();
  }

  // Projects

  listProjects(page: PageRequest): Promise<Page<Project>> {
    return paged(
      this.#db.selectFrom('projects').selectAll(),
      'key',
      'asc',
      page,
      (r) => r.key,
      (rows) => rows.map(projectFromRow),
    );
  }

  async findProject(idOrKey: string): Promise<Project | undefined> {
    const row = await this.#db
      .selectFrom('projects')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key', '=', idOrKey)]))
      .executeTakeFirst();
    return row && projectFromRow(row);
  }

  insertProject(project: Project): Promise<void> {
    return this.#atomically(async (store) => {
      await mapUnique(store.#db.insertInto('projects').values(projectToRow(project)).execute());
      await store.#db
        .insertInto('project_revisions')
        .values({ project_id: project.id, revision: 1 })
        .execute();
    });
  }

  async updateProject(project: Project, expectedVersion: number): Promise<boolean> {
    const { id: _, ...row } = projectToRow(project);
    const result = await mapUnique(
      this.#db
        .updateTable('projects')
        .set(row)
        .where('id', '=', project.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteProject(id: string): Promise<void> {
    await this.#db.deleteFrom('projects').where('id', '=', id).execute();
  }

  async bumpRevision(projectId: string): Promise<number> {
    const row = await this.#db
      .updateTable('project_revisions')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('project_id', '=', projectId)
      .returning('revision')
      .executeTakeFirstOrThrow();
    return Number(row.revision);
  }

  async listRevisions(): Promise<ReadonlyMap<string, number>> {
    const rows = await this.#db.selectFrom('project_revisions').selectAll().execute();
    return new Map(rows.map((r) => [r.project_id, Number(r.revision)]));
  }

  // Environments

  async listEnvironments(projectId: string): Promise<readonly Environment[]> {
    const rows = await this.#db
      .selectFrom('environments')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(environmentFromRow);
  }

  async findEnvironment(projectId: string, key: string): Promise<Environment | undefined> {
    const row = await this.#db
      .selectFrom('environments')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('key', '=', key)
      .executeTakeFirst();
    return row && environmentFromRow(row);
  }

  async insertEnvironment(environment: Environment): Promise<void> {
    await mapUnique(this.#db.insertInto('environments').values(environmentToRow(environment)).execute());
  }

  async updateEnvironment(environment: Environment, expectedVersion: number): Promise<boolean> {
    const { id: _, ...row } = environmentToRow(environment);
    const result = await mapUnique(
      this.#db
        .updateTable('environments')
        .set(row)
        .where('id', '=', environment.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteEnvironment(id: string): Promise<void> {
    await this.#db.deleteFrom('environments').where('id', '=', id).execute();
  }

  // Flags

  /** Loads every environment's configuration of the given flags in one query. */
  async #withEnvironments(rows: Database['flags'][]): Promise<Flag[]> {
    if (rows.length === 0) return [];
    const byFlag = new Map<string, Record<string, FlagEnvironment>>(rows.map((r) => [r.id, {}]));
    // Chunked so a 10k-flag project stays under every driver's bound-parameter limit.
    for (let i = 0; i < rows.length; i += 500) {
      const ids = rows.slice(i, i + 500).map((r) => r.id);
      const configs = await this.#db
        .selectFrom('flag_environments')
        .innerJoin('environments', 'environments.id', 'flag_environments.environment_id')
        .select([
          'flag_environments.flag_id',
          'environments.key',
          'flag_environments.enabled',
          'flag_environments.config',
        ])
        .where('flag_environments.flag_id', 'in', ids)
        .execute();
      for (const c of configs) {
        const environments = byFlag.get(c.flag_id);
        if (environments) environments[c.key] = flagEnvironmentFromRow(c);
      }
    }
    return rows.map((r) => flagFromRow(r, byFlag.get(r.id) ?? {}));
  }

  listFlags(projectId: string, filter: FlagFilter, page: PageRequest): Promise<Page<Flag>> {
    let query = this.#db.selectFrom('flags').selectAll().where('project_id', '=', projectId);
    if (filter.archived !== undefined) query = query.where('archived', '=', filter.archived ? 1 : 0);
    if (filter.q) {
      // Lowered by the database on both sides: SQLite's lower() folds ASCII only, so lowering
      // the text in JavaScript made names with capitals such as 'Ä' unfindable there.
      const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([
          eb(eb.fn('lower', ['key']), 'like', sql<string>`lower(${pattern}) escape '\\'`),
          eb(eb.fn('lower', ['name']), 'like', sql<string>`lower(${pattern}) escape '\\'`),
        ]),
      );
    }
    if (filter.tag) {
      // Tags are a JSON array of strings: match the quoted element exactly. Not LIKE, which
      // ignores case on SQLite; replace() is case-sensitive on both databases.
      const needle = JSON.stringify(filter.tag);
      query = query.where((eb) =>
        eb(eb.fn('replace', ['tags', eb.val(needle), eb.val('')]), '<>', eb.ref('tags')),
      );
    }
    return paged(
      query,
      'key',
      'asc',
      page,
      (r) => r.key,
      (rows) => this.#withEnvironments(rows),
    );
  }

  async allFlags(projectId: string): Promise<readonly Flag[]> {
    const rows = await this.#db
      .selectFrom('flags')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('key')
      .execute();
    return this.#withEnvironments(rows);
  }

  async findFlagById(id: string): Promise<Flag | undefined> {
    const rows = await this.#db.selectFrom('flags').selectAll().where('id', '=', id).execute();
    return (await this.#withEnvironments(rows))[0];
  }

  async findFlagByKey(projectId: string, key: string): Promise<Flag | undefined> {
    const rows = await this.#db
      .selectFrom('flags')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('key', '=', key)
      .execute();
    return (await this.#withEnvironments(rows))[0];
  }

  async #environmentIds(projectId: string): Promise<Map<string, string>> {
    const environments = await this.listEnvironments(projectId);
    return new Map(environments.map((e) => [e.key, e.id]));
  }

  async #writeFlagEnvironments(flag: Flag): Promise<void> {
    const ids = await this.#environmentIds(flag.projectId);
    for (const [envKey, config] of Object.entries(flag.environments)) {
      const environmentId = ids.get(envKey);
      if (environmentId === undefined) continue;
      const columns = flagEnvironmentToColumns(config);
      await this.#db
        .insertInto('flag_environments')
        .values({ flag_id: flag.id, environment_id: environmentId, ...columns })
        .onConflict((oc) => oc.columns(['flag_id', 'environment_id']).doUpdateSet(columns))
        .execute();
    }
  }

  insertFlag(flag: Flag): Promise<void> {
    return this.#atomically(async (store) => {
      await mapUnique(store.#db.insertInto('flags').values(flagToRow(flag)).execute());
      await store.#writeFlagEnvironments(flag);
    });
  }

  updateFlag(flag: Flag, expectedVersion: number): Promise<boolean> {
    const { id: _, ...row } = flagToRow(flag);
    return this.#atomically(async (store) => {
      const result = await mapUnique(
        store.#db
          .updateTable('flags')
          .set(row)
          .where('id', '=', flag.id)
          .where('version', '=', expectedVersion)
          .executeTakeFirst(),
      );
      if (Number(result.numUpdatedRows) !== 1) return false;
      await store.#writeFlagEnvironments(flag);
      return true;
    });
  }

  async deleteFlag(id: string): Promise<void> {
    await this.#db.deleteFrom('flags').where('id', '=', id).execute();
  }

  async insertFlagEnvironments(
    environmentId: string,
    configs: ReadonlyMap<string, FlagEnvironment>,
  ): Promise<void> {
    const rows = [...configs].map(([flagId, config]) => ({
      flag_id: flagId,
      environment_id: environmentId,
      ...flagEnvironmentToColumns(config),
    }));
    await this.#atomically(async (store) => {
      for (let i = 0; i < rows.length; i += 200) {
        await store.#db
          .insertInto('flag_environments')
          .values(rows.slice(i, i + 200))
          .execute();
      }
    });
  }

  // Segments

  listSegments(projectId: string, page: PageRequest): Promise<Page<Segment>> {
    return paged(
      this.#db.selectFrom('segments').selectAll().where('project_id', '=', projectId),
      'key',
      'asc',
      page,
      (r) => r.key,
      (rows) => rows.map(segmentFromRow),
    );
  }

  async allSegments(projectId: string): Promise<readonly Segment[]> {
    const rows = await this.#db
      .selectFrom('segments')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('key')
      .execute();
    return rows.map(segmentFromRow);
  }

  async findSegmentById(id: string): Promise<Segment | undefined> {
    const row = await this.#db.selectFrom('segments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && segmentFromRow(row);
  }

  async insertSegment(segment: Segment): Promise<void> {
    await mapUnique(this.#db.insertInto('segments').values(segmentToRow(segment)).execute());
  }

  async updateSegment(segment: Segment, expectedVersion: number): Promise<boolean> {
    const { id: _, ...row } = segmentToRow(segment);
    const result = await mapUnique(
      this.#db
        .updateTable('segments')
        .set(row)
        .where('id', '=', segment.id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteSegment(id: string): Promise<void> {
    await this.#db.deleteFrom('segments').where('id', '=', id).execute();
  }

  // API keys

  listApiKeys(projectId: string | null, page: PageRequest): Promise<Page<ApiKey>> {
    const query = this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('project_id', projectId === null ? 'is' : '=', projectId);
    return paged(
      query,
      'id',
      'asc',
      page,
      (r) => r.id,
      (rows) => rows.map((r) => withoutSecret(apiKeyFromRow(r))),
    );
  }

  async findApiKeyById(id: string): Promise<ApiKey | undefined> {
    const row = await this.#db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row && withoutSecret(apiKeyFromRow(row));
  }

  async findApiKeyByHash(secretHash: string): Promise<StoredApiKey | undefined> {
    const row = await this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .executeTakeFirst();
    return row && apiKeyFromRow(row);
  }

  async findApiKeysByHash(secretHashes: readonly string[]): Promise<readonly StoredApiKey[]> {
    if (secretHashes.length === 0) return [];
    const rows = await this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('secret_hash', 'in', [...secretHashes])
      .execute();
    return rows.map(apiKeyFromRow);
  }

  async insertApiKey(key: StoredApiKey): Promise<void> {
    await mapUnique(this.#db.insertInto('api_keys').values(apiKeyToRow(key)).execute());
  }

  async revokeApiKey(id: string, at: string): Promise<void> {
    await this.#db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).execute();
  }

  async touchApiKeys(lastUsed: ReadonlyMap<string, string>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.#atomically(async (store) => {
      for (const [id, at] of lastUsed) {
        await store.#db
          .updateTable('api_keys')
          .set({ last_used_at: at })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
          .execute();
      }
    });
  }

  // Accounts, invitations and sessions (dashboard)

  listAccounts(filter: AccountFilter, page: PageRequest): Promise<Page<StoredAccount>> {
    let query = this.#db.selectFrom('accounts').selectAll();
    if (filter.projectId !== undefined)
      query = query.where('project_id', filter.projectId === null ? 'is' : '=', filter.projectId);
    return paged(
      query,
      'id',
      'asc',
      page,
      (r) => r.id,
      (rows) => rows.map(accountFromRow),
    );
  }

  async findAccountById(id: string): Promise<StoredAccount | undefined> {
    const row = await this.#db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && accountFromRow(row);
  }

  async findAccountByEmail(email: string): Promise<StoredAccount | undefined> {
    const row = await this.#db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    return row && accountFromRow(row);
  }

  async insertAccount(account: StoredAccount): Promise<void> {
    await mapUnique(this.#db.insertInto('accounts').values(accountToRow(account)).execute());
  }

  async updateAccount(account: StoredAccount): Promise<void> {
    const { id: _, created_at: __, ...row } = accountToRow(account);
    await mapUnique(this.#db.updateTable('accounts').set(row).where('id', '=', account.id).execute());
  }

  deleteAccount(id: string): Promise<void> {
    return this.#atomically(async (store) => {
      await store.#db.deleteFrom('sessions').where('account_id', '=', id).execute();
      await store.#db.deleteFrom('accounts').where('id', '=', id).execute();
    });
  }

  listInvitations(filter: InvitationFilter, page: PageRequest): Promise<Page<StoredInvitation>> {
    let query = this.#db.selectFrom('invitations').selectAll();
    if (filter.projectId !== undefined)
      query = query.where('project_id', filter.projectId === null ? 'is' : '=', filter.projectId);
    if (filter.pendingAt !== undefined)
      query = query.where('accepted_at', 'is', null).where('expires_at', '>', filter.pendingAt);
    return paged(
      query,
      'id',
      'asc',
      page,
      (r) => r.id,
      (rows) => rows.map(invitationFromRow),
    );
  }

  async findInvitationById(id: string): Promise<StoredInvitation | undefined> {
    const row = await this.#db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
    return row && invitationFromRow(row);
  }

  async findInvitationByHash(tokenHash: string): Promise<StoredInvitation | undefined> {
    const row = await this.#db
      .selectFrom('invitations')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && invitationFromRow(row);
  }

  async insertInvitation(invitation: StoredInvitation): Promise<void> {
    await mapUnique(this.#db.insertInto('invitations').values(invitationToRow(invitation)).execute());
  }

  async acceptInvitation(id: string, at: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('invitations')
      .set({ accepted_at: at })
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteInvitation(id: string): Promise<void> {
    await this.#db.deleteFrom('invitations').where('id', '=', id).execute();
  }

  async insertSession(session: StoredSession): Promise<void> {
    await this.#db.insertInto('sessions').values(sessionToRow(session)).execute();
  }

  async findSessionByHash(tokenHash: string): Promise<StoredSession | undefined> {
    const row = await this.#db
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && sessionFromRow(row);
  }

  async deleteSession(id: string): Promise<void> {
    await this.#db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async deleteSessionsOfAccount(accountId: string): Promise<void> {
    await this.#db.deleteFrom('sessions').where('account_id', '=', accountId).execute();
  }

  async deleteExpiredSessions(at: string): Promise<void> {
    await this.#db.deleteFrom('sessions').where('expires_at', '<=', at).execute();
  }

  // Audit log

  async insertAuditEvent(projectId: string | null, event: AuditEvent): Promise<void> {
    await this.#db.insertInto('audit_events').values(auditEventToRow(projectId, event)).execute();
  }

  listAuditEvents(
    projectId: string | null,
    filter: AuditFilter,
    page: PageRequest,
  ): Promise<Page<AuditEvent>> {
    let query = this.#db.selectFrom('audit_events').selectAll();
    if (projectId !== null) query = query.where('project_id', '=', projectId);
    if (filter.resourceType) query = query.where('resource_type', '=', filter.resourceType);
    if (filter.resourceId) query = query.where('resource_id', '=', filter.resourceId);
    if (filter.action) query = query.where('action', '=', filter.action);
    return paged(
      query,
      'id',
      'desc',
      page,
      (r) => r.id,
      (rows) => rows.map(auditEventFromRow),
    );
  }
}
