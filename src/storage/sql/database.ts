/**
 * The tables as Kysely sees them. Both dialects store JSON as text, booleans as 0/1 and
 * timestamps as RFC 3339 text, so one set of queries serves SQLite and PostgreSQL.
 */
export interface ProjectsTable {
  id: string;
  key: string;
  name: string;
  description: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface EnvironmentsTable {
  id: string;
  project_id: string;
  key: string;
  name: string;
  description: string;
  /** 0 or 1. */
  protected: number;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface FlagsTable {
  id: string;
  project_id: string;
  key: string;
  name: string;
  description: string;
  type: string;
  variants: string;
  tags: string;
  archived: number;
  metadata: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface FlagEnvironmentsTable {
  flag_id: string;
  environment_id: string;
  enabled: number;
  /** FlagEnvironment minus `enabled`, as JSON. */
  config: string;
}

export interface SegmentsTable {
  id: string;
  project_id: string;
  key: string;
  name: string;
  description: string;
  match: string;
  rules: string;
  included: string;
  excluded: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  project_id: string | null;
  role: string;
  environments: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AuditEventsTable {
  id: string;
  project_id: string | null;
  at: string;
  actor: string;
  action: string;
  resource_type: string;
  resource_id: string;
  resource_key: string | null;
  environment: string | null;
  before: string | null;
  after: string | null;
  request_id: string;
  /** The actor's id, beside the JSON of `actor`, so the log can be filtered by who acted (migration 0009). */
  actor_id: string | null;
  /** A change request's flag or segment (migration 0019). */
  subject_id: string | null;
  /** JSON: what else the event needs to say (a scheduled write's delay); null for most. */
  details: string | null;
}

/** One row per project: bumped by every write that changes what evaluation serves, so nodes notice. */
export interface ProjectRevisionsTable {
  project_id: string;
  revision: number;
}

/** Counters moved by triggers (migration 0005): `api_keys` moves with every change to a key. */
export interface ChangeCountersTable {
  name: string;
  revision: number;
}

export interface AccountsTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  role: string;
  project_id: string | null;
  created_at: string;
  last_login_at: string | null;
  version: number;
  /** 1 active, 0 deactivated. */
  active: number;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  /** MappedRole[] as JSON. */
  sso_roles: string | null;
  external_id: string | null;
}

/** A sign-in through the identity provider in progress: one-time, found by its state's hash. */
export interface OidcSignInsTable {
  state_hash: string;
  /** The hash of the cookie that ties the sign-in to the browser that started it. */
  browser_hash: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  expires_at: string;
}

export interface InvitationsTable {
  id: string;
  email: string | null;
  role: string;
  project_id: string | null;
  token_hash: string;
  /** `{ type, id, name }` as JSON. */
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

export interface PasswordResetsTable {
  id: string;
  account_id: string;
  token_hash: string;
  /** `{ type, id, name }` as JSON. */
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  account_id: string;
  created_at: string;
  expires_at: string;
  /** 1: a password (or a link that set one) started it; 0: single sign-on. */
  by_password: number;
}

export interface ProvisionedGroupsTable {
  id: string;
  display_name: string;
  external_id: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ProvisionedGroupMembersTable {
  group_id: string;
  account_id: string;
}

/** Evaluations of one flag in one environment in one minute (minutes since the Unix epoch), by variant and reason. */
export interface FlagEvaluationCountsTable {
  project_id: string;
  flag_key: string;
  environment: string;
  minute: number;
  /** '' when no variant was served. */
  variant: string;
  reason: string;
  count: number;
}

/** The first and last minute a variant of a flag was served in an environment. */
export interface FlagVariantUsageTable {
  project_id: string;
  flag_key: string;
  environment: string;
  variant: string;
  first_minute: number;
  last_minute: number;
}

export interface ApprovalPoliciesTable {
  environment_id: string;
  required_approvals: number;
}

/**
 * Change requests and scheduled changes (migration 0013): writes kept to be made later on behalf
 * of their author. Columns only one kind uses are NULL for the other.
 */
export interface PendingChangesTable {
  id: string;
  /** 'request' (waits for approvals) or 'schedule' (waits for its time). */
  kind: string;
  /** The write it makes: a ChangeRequestKind ('flag.patch' for every scheduled change). */
  write_kind: string;
  project_id: string;
  flag_id: string | null;
  segment_id: string | null;
  environment: string;
  /** JSON array of environment keys (requests). */
  environments: string | null;
  /** JSON. */
  patch: string;
  /** JSON array of `{ path, before, after }`; NULL for requests made before they were recorded. */
  changes: string | null;
  comment: string;
  /** JSON `{ type, id, name }` (a scheduled change keeps its author's whole principal). */
  author: string;
  status: string;
  /** When a scheduled change is due (RFC 3339). */
  at: string | null;
  base_version: number | null;
  required_approvals: number | null;
  conflict: string | null;
  /** JSON array of `{ by, at, comment }` (requests). */
  approvals: string | null;
  decided_by: string | null;
  failure: string | null;
  /** When a scheduled change was applied, failed or was cancelled. */
  settled_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Tracking events (migration 0018); on PostgreSQL partitioned by `day`. */
export interface EventsTable {
  project_id: string;
  environment: string;
  /** Days since the epoch (UTC) of `at`. */
  day: number;
  id: string;
  name: string;
  /** The context's targetingKey. */
  unit: string;
  at: string;
  value: number | null;
  /** JSON: the context without targetingKey. */
  context: string;
  /** JSON, or NULL when the event had none. */
  details: string | null;
}

/** Exposures of units to experiments (migration 0018). */
export interface ExposuresTable {
  project_id: string;
  environment: string;
  experiment: string;
  unit: string;
  variant: string;
  first_at: string;
  /** 0 or 1. */
  multiple: number;
}

/** Metric definitions per project (migration 0018). */
export interface MetricsTable {
  id: string;
  project_id: string;
  key: string;
  name: string;
  description: string;
  event: string;
  kind: string;
  window_hours: number;
  goal: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** What a repository's last report said of a branch (migration 0022). */
export interface CodeRepositoriesTable {
  project_id: string;
  repository: string;
  branch: string;
  url_template: string | null;
  updated_at: string;
}

/** Where a repository's branch names a flag (migration 0022); `context` is JSON text. */
export interface CodeReferencesTable {
  project_id: string;
  repository: string;
  branch: string;
  flag_key: string;
  path: string;
  line: number;
  context: string;
}

/** Experiments (migration 0020): JSON text for their lists and settings. */
export interface ExperimentsTable {
  id: string;
  project_id: string;
  key: string;
  name: string;
  description: string;
  flag: string;
  environment: string;
  control: string;
  treatments: string;
  metrics: string;
  analysis: string;
  /** 0 or 1. */
  cuped: number;
  status: string;
  started_at: string | null;
  stopped_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A project's release template: its document in `body` (migration 0021). */
export interface ReleaseTemplatesTable {
  id: string;
  project_id: string;
  key: string;
  body: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Units a comparison took in, as the aggregate fold first saw them (migration 0020). */
export interface ComparisonUnitsTable {
  project_id: string;
  comparison: string;
  unit: string;
  variant: string;
  first_at: string;
}

/** Per unit and metric of a comparison: in-window and pre-exposure sums (migration 0020). */
export interface ComparisonMetricUnitsTable {
  project_id: string;
  comparison: string;
  metric_id: string;
  unit: string;
  variant: string;
  count: number;
  sum: number;
  pre_count: number;
  pre_sum: number;
}

/** Metric events per unit and day (migration 0020). */
export interface UnitEventDaysTable {
  project_id: string;
  environment: string;
  event: string;
  unit: string;
  day: number;
  count: number;
  sum: number;
}

/** Where the aggregate fold is (migration 0020). */
export interface FoldCursorsTable {
  name: string;
  events: string;
  exposures: string;
  version: number;
}

/** Hourly per-variant sums of a comparison's metric (migration 0020); `variants` is JSON. */
export interface ComparisonSnapshotsTable {
  project_id: string;
  comparison: string;
  metric_id: string;
  hour: number;
  variants: string;
}

/** A flag's release plan in one environment: its document in `body`, its status beside it for the guard checker. */
export interface ReleasePlansTable {
  id: string;
  project_id: string;
  flag_id: string;
  environment: string;
  status: string;
  body: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface Database {
  projects: ProjectsTable;
  environments: EnvironmentsTable;
  flags: FlagsTable;
  flag_environments: FlagEnvironmentsTable;
  segments: SegmentsTable;
  api_keys: ApiKeysTable;
  audit_events: AuditEventsTable;
  project_revisions: ProjectRevisionsTable;
  change_counters: ChangeCountersTable;
  accounts: AccountsTable;
  invitations: InvitationsTable;
  sessions: SessionsTable;
  provisioned_groups: ProvisionedGroupsTable;
  provisioned_group_members: ProvisionedGroupMembersTable;
  oidc_sign_ins: OidcSignInsTable;
  password_resets: PasswordResetsTable;
  approval_policies: ApprovalPoliciesTable;
  pending_changes: PendingChangesTable;
  flag_evaluation_counts: FlagEvaluationCountsTable;
  flag_variant_usage: FlagVariantUsageTable;
  events: EventsTable;
  exposures: ExposuresTable;
  metrics: MetricsTable;
  experiments: ExperimentsTable;
  comparison_units: ComparisonUnitsTable;
  comparison_metric_units: ComparisonMetricUnitsTable;
  unit_event_days: UnitEventDaysTable;
  fold_cursors: FoldCursorsTable;
  comparison_snapshots: ComparisonSnapshotsTable;
  release_templates: ReleaseTemplatesTable;
  release_plans: ReleasePlansTable;
  code_repositories: CodeRepositoriesTable;
  code_references: CodeReferencesTable;
}
