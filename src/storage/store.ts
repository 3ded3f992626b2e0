import type { Account, Invitation, Session } from '../domain/account.ts';
import type { ApiKey } from '../domain/api-key.ts';
import type { AuditEvent } from '../domain/audit-event.ts';
import type { Flag, FlagEnvironment } from '../domain/flag.ts';
import type { Environment, Project } from '../domain/project.ts';
import type { Segment } from '../domain/segment.ts';
import type { ApprovalStore } from './approval-store.ts';
import type { ScheduledChangeStore } from './scheduled-change-store.ts';

/** A page request: at most `limit` items after the opaque `cursor`. */
export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Set when more items remain. */
  readonly nextCursor?: string;
}

export interface FlagFilter {
  readonly tag?: string | undefined;
  /** Key or name contains this text (case-insensitive). */
  readonly q?: string | undefined;
  readonly archived?: boolean | undefined;
}

export interface AuditFilter {
  readonly resourceType?: string | undefined;
  readonly resourceId?: string | undefined;
  readonly action?: string | undefined;
}

export interface StoredApiKey extends ApiKey {
  readonly secretHash: string;
}

export interface StoredAccount extends Account {
  /** scrypt parameters, salt and hash (see services/passwords.ts). */
  readonly passwordHash: string;
}

export interface StoredInvitation extends Invitation {
  readonly tokenHash: string;
}

export interface StoredSession extends Session {
  readonly tokenHash: string;
}

export interface AccountFilter {
  /** A project id, or null for organisation-wide accounts; undefined: every account. */
  readonly projectId?: string | null | undefined;
}

export interface InvitationFilter extends AccountFilter {
  /** Only invitations neither accepted nor expired at this time. */
  readonly pendingAt?: string | undefined;
}

/** Thrown by inserts and updates that would break a uniqueness rule (a key that already exists). */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
}

/**
 * The storage port. Every method is atomic on its own; `transaction` groups several so they
 * happen together or not at all. Writes that take `expectedVersion` change nothing and
 * return false when the stored version differs.
 */
export interface Store {
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /** Scheduled changes, in this store's transaction when it is one. */
  readonly scheduledChanges: ScheduledChangeStore;
  /** Approval policies and change requests, in this store's transaction when it is one. */
  readonly approvals: ApprovalStore;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;

  listProjects(page: PageRequest): Promise<Page<Project>>;
  /** Finds by id or by key. */
  findProject(idOrKey: string): Promise<Project | undefined>;
  insertProject(project: Project): Promise<void>;
  updateProject(project: Project, expectedVersion: number): Promise<boolean>;
  deleteProject(id: string): Promise<void>;
  /** Bumps and returns the project's revision: every node rebuilds its snapshots when it moves. */
  bumpRevision(projectId: string): Promise<number>;
  /** Revisions of every project, for nodes to poll. */
  listRevisions(): Promise<ReadonlyMap<string, number>>;

  /** Environments of a project, in creation order. */
  listEnvironments(projectId: string): Promise<readonly Environment[]>;
  findEnvironment(projectId: string, key: string): Promise<Environment | undefined>;
  insertEnvironment(environment: Environment): Promise<void>;
  updateEnvironment(environment: Environment, expectedVersion: number): Promise<boolean>;
  deleteEnvironment(id: string): Promise<void>;

  /** Flags in key order, each with every environment's configuration. */
  listFlags(projectId: string, filter: FlagFilter, page: PageRequest): Promise<Page<Flag>>;
  /** Every flag of a project, for building evaluation snapshots. */
  allFlags(projectId: string): Promise<readonly Flag[]>;
  findFlagById(id: string): Promise<Flag | undefined>;
  findFlagByKey(projectId: string, key: string): Promise<Flag | undefined>;
  /** Inserts the flag and one configuration row per entry of `flag.environments`. */
  insertFlag(flag: Flag): Promise<void>;
  /** Replaces the flag's fields and its configuration in every environment it lists. */
  updateFlag(flag: Flag, expectedVersion: number): Promise<boolean>;
  deleteFlag(id: string): Promise<void>;
  /** Gives every flag of the project a configuration in the new environment. */
  insertFlagEnvironments(environmentId: string, configs: ReadonlyMap<string, FlagEnvironment>): Promise<void>;

  listSegments(projectId: string, page: PageRequest): Promise<Page<Segment>>;
  allSegments(projectId: string): Promise<readonly Segment[]>;
  findSegmentById(id: string): Promise<Segment | undefined>;
  insertSegment(segment: Segment): Promise<void>;
  updateSegment(segment: Segment, expectedVersion: number): Promise<boolean>;
  deleteSegment(id: string): Promise<void>;

  /** API keys of one project, or the organisation-wide ones when `projectId` is null; creation order. */
  listApiKeys(projectId: string | null, page: PageRequest): Promise<Page<ApiKey>>;
  findApiKeyById(id: string): Promise<ApiKey | undefined>;
  findApiKeyByHash(secretHash: string): Promise<StoredApiKey | undefined>;
  /** The keys whose secret hashes are among `secretHashes` (one query, for many requests at once). */
  findApiKeysByHash(secretHashes: readonly string[]): Promise<readonly StoredApiKey[]>;
  insertApiKey(key: StoredApiKey): Promise<void>;
  revokeApiKey(id: string, at: string): Promise<void>;
  /** Records last use for many keys at once (batched off the request path); never moves a key's last use back. */
  touchApiKeys(lastUsed: ReadonlyMap<string, string>): Promise<void>;

  /** Dashboard accounts in creation order. */
  listAccounts(filter: AccountFilter, page: PageRequest): Promise<Page<StoredAccount>>;
  findAccountById(id: string): Promise<StoredAccount | undefined>;
  /** `email` lower-cased, as stored. */
  findAccountByEmail(email: string): Promise<StoredAccount | undefined>;
  /** Throws UniqueViolation when the email is taken. */
  insertAccount(account: StoredAccount): Promise<void>;
  /** Replaces every field but id and createdAt. */
  updateAccount(account: StoredAccount): Promise<void>;
  /** Deletes the account and its sessions. */
  deleteAccount(id: string): Promise<void>;

  /** Invitations in creation order. */
  listInvitations(filter: InvitationFilter, page: PageRequest): Promise<Page<StoredInvitation>>;
  findInvitationById(id: string): Promise<StoredInvitation | undefined>;
  findInvitationByHash(tokenHash: string): Promise<StoredInvitation | undefined>;
  insertInvitation(invitation: StoredInvitation): Promise<void>;
  /** Marks an unused invitation used; false when it was used already, so a link works once even in a race. */
  acceptInvitation(id: string, at: string): Promise<boolean>;
  deleteInvitation(id: string): Promise<void>;

  insertSession(session: StoredSession): Promise<void>;
  findSessionByHash(tokenHash: string): Promise<StoredSession | undefined>;
  deleteSession(id: string): Promise<void>;
  /** Ends every session of an account (removal, password change). */
  deleteSessionsOfAccount(accountId: string): Promise<void>;
  /** Housekeeping: drops sessions that expired before `at`. */
  deleteExpiredSessions(at: string): Promise<void>;

  insertAuditEvent(projectId: string | null, event: AuditEvent): Promise<void>;
  /** Newest first: one project's events, or with `projectId` null every event of the installation. */
  listAuditEvents(
    projectId: string | null,
    filter: AuditFilter,
    page: PageRequest,
  ): Promise<Page<AuditEvent>>;
}
