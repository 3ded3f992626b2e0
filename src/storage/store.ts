import type { Account, Invitation, PasswordReset, Session } from '../domain/account.ts';
import type { ApiKey } from '../domain/api-key.ts';
import type { AuditEvent, AuditFilter } from '../domain/audit-event.ts';
import type { Flag, FlagEnvironment } from '../domain/flag.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import type { Environment, Project } from '../domain/project.ts';
import type { ProvisionedGroup } from '../domain/provisioned-group.ts';
import type { Segment } from '../domain/segment.ts';
import type { FlagChange } from './change-feed/change-feed.ts';
import type { CodeReferenceStore } from './code-reference-store.ts';
import type { ComparisonAggregateStore } from './comparison-aggregate-store.ts';
import type { EventStore } from './event-store.ts';
import type { ExperimentStore } from './experiment-store.ts';
import type { ExposureStore } from './exposure-store.ts';
import type { InsightsStore } from './insights-store.ts';
import type { MetricStore } from './metric-store.ts';
import type { PendingChangeStore } from './pending-change-store.ts';
import type { ReleaseStore } from './release-store.ts';
import type { WebhookStore } from './webhook-store.ts';

export type { AuditFilter, Page, PageRequest };

export interface FlagFilter {
  readonly tag?: string | undefined;
  /** Key or name contains this text (case-insensitive). */
  readonly q?: string | undefined;
  readonly archived?: boolean | undefined;
  /** Only the flags stale (or not stale) in one environment (docs/product.md §10). */
  readonly stale?: StaleFilter | undefined;
  /** Only the flags on (or off) in one environment. */
  readonly enabled?: EnabledFilter | undefined;
}

/** A flag is on in an environment when its configuration there says so; without one, it is off. */
export interface EnabledFilter {
  readonly environment: string;
  /** true: only flags on there; false: only flags off there. */
  readonly enabled: boolean;
}

/**
 * The stale rule of insights/stale.ts (`staleness`), as the store answers it in its query so that a
 * page of stale flags is read like any other (docs/decisions/1801-list-filters-in-the-database.md):
 * a flag created by the window's start is stale when, in `environment`, at most one variant was
 * served since the window's start, and none of them was first served after it.
 */
export interface StaleFilter {
  readonly environment: string;
  /** The first minute (since the epoch) of the 30 days the rule looks at. */
  readonly windowStartMinute: number;
  /** true: only stale flags; false: only flags that are not. */
  readonly stale: boolean;
}

export interface StoredApiKey extends ApiKey {
  readonly secretHash: string;
}

export interface StoredAccount extends Account {
  /** scrypt parameters, salt and hash (see services/core/passwords.ts). */
  readonly passwordHash: string;
}

export interface StoredInvitation extends Invitation {
  readonly tokenHash: string;
}

export interface StoredSession extends Session {
  readonly tokenHash: string;
  /**
   * true: single sign-on started it; otherwise a password (or a link that set one) did. Written,
   * not read back: only the start of a node with password sign-in off asks (decision 1890).
   */
  readonly singleSignOn?: boolean;
}

export interface StoredPasswordReset extends PasswordReset {
  readonly tokenHash: string;
}

/** A sign-in through the identity provider that waits for the person to come back (decision 1720). */
export interface PendingOidcSignIn {
  /** SHA-256 of the `state` sent to the provider. */
  readonly stateHash: string;
  /** SHA-256 of the cookie that ties the sign-in to the browser that started it. */
  readonly browserHash: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** The dashboard path to return to. */
  readonly returnTo: string;
  readonly expiresAt: string;
}

export interface AccountFilter {
  /** A project id, or null for organisation-wide accounts; undefined: every account. */
  readonly projectId?: string | null | undefined;
}

/** Which accounts a list keeps: those of a scope whose email or name contains a text. */
export interface AccountSearch extends AccountFilter {
  /** Email or name contains this text (case-insensitive). */
  readonly q?: string | undefined;
}

export interface InvitationFilter extends AccountFilter {
  /** Only invitations neither accepted nor expired at this time. */
  readonly pendingAt?: string | undefined;
}

/** Everything evaluation needs of one project, read together so it matches `revision`. */
export interface ProjectContents {
  readonly revision: number;
  readonly environments: readonly Environment[];
  readonly flags: readonly Flag[];
  readonly segments: readonly Segment[];
}

/** Thrown by inserts and updates that would break a uniqueness rule (a key that already exists). */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
}

// The port, by role (as Flipt's storers): each consumer names only the roles it uses. Every
// method is atomic on its own; `transaction` groups several so they happen together or not at
// all. Writes that take `expectedVersion` change nothing and return false when the stored
// version differs. Deletes return false when there was nothing to delete, so of two racing
// deletes exactly one learns it deleted.

/** Runs `work` in one transaction over the roles `R`; a transaction started inside one joins it. */
export interface Transactional<R> {
  transaction<T>(work: (tx: WithTransactions<R>) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: runs `work` so that when it throws, only what it wrote is undone and the
   * transaction goes on (a savepoint: one item of a batch refused, the others kept). Outside one,
   * a transaction of its own.
   */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
}

/** The roles `R`, and transactions over the same roles: what a use case that writes names. */
export type WithTransactions<R> = R & Transactional<R>;

/** What the evaluation snapshots read: a project's contents and every project's revision. */
export interface EvaluationSource {
  /** Every environment, flag (key order) and segment (key order) of a project, with its revision; one consistent read. */
  readProject(projectId: string): Promise<ProjectContents>;
  /** Revisions of every project, for nodes to compare with their own. */
  listRevisions(): Promise<ReadonlyMap<string, number>>;
  /**
   * The flags of these ids that exist, with every environment's configuration, for a node
   * patching its snapshot after a notification (a flagd import names 500 at a time).
   */
  readFlags(flagIds: readonly string[]): Promise<readonly Flag[]>;
  /** The id and key of every project, so evaluation names projects without asking the database. */
  listProjectKeys(): Promise<readonly { readonly id: string; readonly key: string }[]>;
}

/** Authentication's question: which keys have these secret hashes. */
export interface KeyLookup {
  /** Every key not revoked, with its hash: what a node authenticates requests with (decision 0201). */
  listActiveApiKeys(): Promise<readonly StoredApiKey[]>;
  /** Moves with every change to any key (a trigger bumps it, migration 0005), so a node knows when to reload them. */
  apiKeysRevision(): Promise<number>;
  /** The keys whose secret hashes are among `secretHashes` (one query, for many requests at once). */
  findApiKeysByHash(secretHashes: readonly string[]): Promise<readonly StoredApiKey[]>;
  /** Records last use for many keys at once (batched off the request path); never moves a key's last use back. */
  touchApiKeys(lastUsed: ReadonlyMap<string, string>): Promise<void>;
}

/** API keys as resources: listed, created and revoked by admins. */
export interface ApiKeyStore extends KeyLookup {
  /** API keys of one project, or the organisation-wide ones when `projectId` is null; creation order. */
  listApiKeys(projectId: string | null, page: PageRequest): Promise<Page<ApiKey>>;
  findApiKeyById(id: string): Promise<ApiKey | undefined>;
  insertApiKey(key: StoredApiKey): Promise<void>;
  revokeApiKey(id: string, at: string): Promise<void>;
}

/** Projects, their environments and their revisions. */
export interface ProjectStore extends EnvironmentStore {
  listProjects(page: PageRequest): Promise<Page<Project>>;
  /** Finds by id or by key. */
  findProject(idOrKey: string): Promise<Project | undefined>;
  insertProject(project: Project): Promise<void>;
  updateProject(project: Project, expectedVersion: number): Promise<boolean>;
  deleteProject(id: string): Promise<boolean>;
  /**
   * Bumps and returns the project's revision, announcing it to every node when the transaction
   * commits; `change` (the one flag written or removed) lets them patch that flag.
   */
  bumpRevision(projectId: string, change?: FlagChange): Promise<number>;
}

/** A project's environments and the approvals each requires. */
export interface EnvironmentStore {
  /** Environments of a project, in creation order. */
  listEnvironments(projectId: string): Promise<readonly Environment[]>;
  findEnvironment(projectId: string, key: string): Promise<Environment | undefined>;
  insertEnvironment(environment: Environment): Promise<void>;
  updateEnvironment(environment: Environment, expectedVersion: number): Promise<boolean>;
  deleteEnvironment(id: string): Promise<boolean>;

  /** Approvals each environment of the project requires (docs/product.md §10), by environment key; absent means 0. */
  requiredApprovals(projectId: string): Promise<ReadonlyMap<string, number>>;
  setRequiredApprovals(environmentId: string, count: number): Promise<void>;
}

/** How a write reads what it is about to change (see `FlagStore.findFlagById`). */
export interface ReadOptions {
  /**
   * Lock the row until the transaction ends, so writers of the same row queue instead of
   * failing their version check. Only meaningful inside a transaction.
   */
  readonly forUpdate?: boolean;
}

/** Which of a project's segments a list keeps. */
export interface SegmentFilter {
  /** Key or name contains this text (case-insensitive). */
  readonly q?: string | undefined;
}

/** Segments of a project. */
export interface SegmentStore {
  listSegments(projectId: string, filter: SegmentFilter, page: PageRequest): Promise<Page<Segment>>;
  /** Every segment of a project, key order. */
  allSegments(projectId: string): Promise<readonly Segment[]>;
  findSegmentById(id: string, options?: ReadOptions): Promise<Segment | undefined>;
  findSegmentByKey(projectId: string, key: string): Promise<Segment | undefined>;
  /**
   * Which of `keys` name segments of the project. Inside a transaction the found segments stay
   * locked against deletion until it ends, so a write that refers to them cannot race their delete.
   */
  existingSegmentKeys(projectId: string, keys: readonly string[]): Promise<ReadonlySet<string>>;
  insertSegment(segment: Segment): Promise<void>;
  updateSegment(segment: Segment, expectedVersion: number): Promise<boolean>;
  deleteSegment(id: string): Promise<boolean>;
}

/** Flags of a project, with the segments their rules name. */
export interface FlagStore extends SegmentStore {
  /** Flags in key order, each with every environment's configuration. */
  listFlags(projectId: string, filter: FlagFilter, page: PageRequest): Promise<Page<Flag>>;
  /** Every flag of a project, key order. */
  allFlags(projectId: string): Promise<readonly Flag[]>;
  /** Every tag of the project's flags, once each, sorted. */
  flagTags(projectId: string): Promise<readonly string[]>;
  /** The project's flags with these keys (those that exist), key order. */
  flagsByKeys(projectId: string, keys: readonly string[]): Promise<readonly Flag[]>;
  /**
   * At least every flag of the project whose configuration names `flagKey` in some environment
   * (as a prerequisite, or anywhere else), key order: what a write checks dependants against
   * without reading the whole project. The caller filters for what it needs.
   */
  flagsNaming(projectId: string, flagKey: string): Promise<readonly Flag[]>;
  findFlagById(id: string, options?: ReadOptions): Promise<Flag | undefined>;
  findFlagByKey(projectId: string, key: string, options?: ReadOptions): Promise<Flag | undefined>;
  /** Inserts the flag and one configuration row per entry of `flag.environments` that names an environment of its project. */
  insertFlag(flag: Flag): Promise<void>;
  /** Replaces the flag's fields and its configuration in every environment it lists. */
  updateFlag(flag: Flag, expectedVersion: number): Promise<boolean>;
  deleteFlag(id: string): Promise<boolean>;
  /** Gives every flag of the project a configuration in the new environment. */
  insertFlagEnvironments(environmentId: string, configs: ReadonlyMap<string, FlagEnvironment>): Promise<void>;
}

/** Dashboard accounts, their invitations and their sessions. */
export interface AccountStore extends AccountRecordStore, InvitationStore, SessionStore, PasswordResetStore {}

/** The accounts themselves. */
export interface AccountRecordStore {
  /** Dashboard accounts in creation order. */
  listAccounts(filter: AccountSearch, page: PageRequest): Promise<Page<StoredAccount>>;
  findAccountById(id: string): Promise<StoredAccount | undefined>;
  /** `email` lower-cased, as stored. */
  findAccountByEmail(email: string): Promise<StoredAccount | undefined>;
  /** The account bound to this identity provider's subject. */
  findAccountBySubject(issuer: string, subject: string): Promise<StoredAccount | undefined>;
  /** Accounts in id order from `offset` (SCIM pages by index), with how many there are in all. */
  accountsFrom(offset: number, limit: number): Promise<{ total: number; items: StoredAccount[] }>;
  /** Throws UniqueViolation when the email is taken. */
  insertAccount(account: StoredAccount): Promise<void>;
  /** Replaces every field but id and createdAt. */
  updateAccount(account: StoredAccount, expectedVersion: number): Promise<boolean>;
  /** Deletes the account, its sessions and its reset links. */
  deleteAccount(id: string): Promise<boolean>;
  /** Accounts an identity provider knows by this id (SCIM externalId), in id order. */
  findAccountsByExternalId(externalId: string): Promise<StoredAccount[]>;
  /**
   * Ids of the active organisation-wide admin accounts. Inside a transaction on PostgreSQL their rows
   * stay locked until it ends, so two admins demoting each other cannot both pass the last-admin rule.
   */
  organisationAdminIds(): Promise<readonly string[]>;
}

/** Invitations to become an account, each link usable once. */
export interface InvitationStore {
  /** Invitations in creation order. */
  listInvitations(filter: InvitationFilter, page: PageRequest): Promise<Page<StoredInvitation>>;
  findInvitationById(id: string): Promise<StoredInvitation | undefined>;
  findInvitationByHash(tokenHash: string): Promise<StoredInvitation | undefined>;
  insertInvitation(invitation: StoredInvitation): Promise<void>;
  /** Marks an unused invitation used; false when it was used already, so a link works once even in a race. */
  acceptInvitation(id: string, at: string): Promise<boolean>;
  deleteInvitation(id: string): Promise<boolean>;
}

/** Signed-in sessions, and single sign-ons still in progress. */
export interface SessionStore {
  insertSession(session: StoredSession): Promise<void>;
  findSessionByHash(tokenHash: string): Promise<StoredSession | undefined>;
  deleteSession(id: string): Promise<boolean>;
  /** Ends every session of the account but `except` (the one that asked); how many ended. */
  deleteSessionsOfAccount(accountId: string, except?: string): Promise<number>;
  /** Housekeeping: drops sessions that expired before `at`. */
  deleteExpiredSessions(at: string): Promise<void>;
  /** Ends every session a password started (FLAGSTAFF_PASSWORD_SIGN_IN=off, at start); how many ended. */
  deletePasswordSessions(): Promise<number>;

  /** Keeps a sign-in in progress; drops those that expired before its start. */
  insertOidcSignIn(pending: PendingOidcSignIn): Promise<void>;
  /** Takes (deletes and answers) the pending sign-in of a state, so each works once even in a race. */
  takeOidcSignIn(stateHash: string): Promise<PendingOidcSignIn | undefined>;
}

/** Password-reset links, each usable once. */
export interface PasswordResetStore {
  insertPasswordReset(reset: StoredPasswordReset): Promise<void>;
  findPasswordResetByHash(tokenHash: string): Promise<StoredPasswordReset | undefined>;
  /** Marks an unused link used; false when it was used already, so it works once even in a race. */
  usePasswordReset(id: string, at: string): Promise<boolean>;
  /** Withdraws the account's unused links (a newer one replaces them, or a reset used one). */
  deletePendingPasswordResets(accountId: string): Promise<void>;
}

/** Which groups a SCIM list keeps: those whose attribute equals the value (none: every group). */
export interface GroupFilter {
  readonly displayName?: string | undefined;
  readonly externalId?: string | undefined;
}

/** Groups the identity provider pushes over SCIM, and their members (decision 1891). */
export interface GroupStore {
  /** Groups in id order from `offset`, with how many the filter keeps in all. */
  groupsFrom(
    filter: GroupFilter,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: ProvisionedGroup[] }>;
  findGroupById(id: string): Promise<ProvisionedGroup | undefined>;
  /** Throws UniqueViolation when the displayName is taken; members must be accounts. */
  insertGroup(group: ProvisionedGroup): Promise<void>;
  /** Replaces name, externalId and members unless the version moved (false); UniqueViolation as insert. */
  updateGroup(group: ProvisionedGroup, expectedVersion: number): Promise<boolean>;
  /** Deletes the group and its memberships. */
  deleteGroup(id: string): Promise<boolean>;
  /** The names of the groups the account is a member of, sorted. */
  groupNamesOfAccount(accountId: string): Promise<string[]>;
  /** Those of `names` that are a group's name. */
  provisionedGroupNames(names: readonly string[]): Promise<string[]>;
}

/** The audit log: written inside each write's transaction, read newest first. */
export interface AuditStore {
  insertAuditEvent(projectId: string | null, event: AuditEvent): Promise<void>;
  /** Newest first: one project's events, or with `projectId` null every event of the installation. */
  listAuditEvents(
    projectId: string | null,
    filter: AuditFilter,
    page: PageRequest,
  ): Promise<Page<AuditEvent>>;
}

/** Change requests and scheduled changes (storage/pending-change-store.ts): reached by name, inside transactions too. */
export interface PendingChangeRole {
  readonly pendingChanges: PendingChangeStore;
}

/** Webhooks and their outbox (storage/webhook-store.ts): in a transaction, enqueued with the write. */
export interface WebhookRole {
  readonly webhooks: WebhookStore;
}

/** Metric definitions (storage/metric-store.ts): reached by name, written in the audit event's transaction. */
export interface MetricRole {
  readonly metrics: MetricStore;
}

/** Experiments (storage/experiment-store.ts): reached by name, written in the audit event's transaction. */
export interface ExperimentRole {
  readonly experiments: ExperimentStore;
}

/** Release templates and plans (storage/release-store.ts): a plan moves in the transaction of the flag write it makes. */
export interface ReleaseRole {
  readonly releases: ReleaseStore;
}

/** Code references (storage/code-reference-store.ts): a report replaces its branch in the audit event's transaction. */
export interface CodeReferenceRole {
  readonly codeReferences: CodeReferenceStore;
}

/** Every role at once, as a transaction sees them; a transaction begun on one joins it. */
export interface StoreRoles
  extends EvaluationSource,
    WebhookRole,
    ApiKeyStore,
    ProjectStore,
    FlagStore,
    AccountStore,
    GroupStore,
    AuditStore,
    PendingChangeRole,
    MetricRole,
    ExperimentRole,
    ReleaseRole,
    CodeReferenceRole,
    Transactional<StoreRoles> {}

/** Evaluation counts for insights: a role of its own, outside transactions (storage/insights-store.ts). */
export interface InsightsRole {
  readonly insights: InsightsStore;
}

/** Tracking events and exposures (SPEC §13): roles of their own, outside transactions (storage/event-store.ts, exposure-store.ts). */
export interface MeasurementRole {
  readonly events: EventStore;
  readonly exposures: ExposureStore;
  /** Per-unit aggregates of measured comparisons, folded from both (storage/comparison-aggregate-store.ts). */
  readonly aggregates: ComparisonAggregateStore;
}

/** The whole port: what an adapter implements and `main.ts` wires. */
export interface Store extends StoreRoles, InsightsRole, MeasurementRole {
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
