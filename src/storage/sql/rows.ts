import type { Invitation, MappedRole, PasswordReset } from '../../domain/account.ts';
import type { ApiKey, Role } from '../../domain/api-key.ts';
import type { AuditEvent } from '../../domain/audit-event.ts';
import type { Flag, FlagEnvironment, FlagType } from '../../domain/flag.ts';
import { deepFreeze } from '../../domain/json.ts';
import type { Environment, Project } from '../../domain/project.ts';
import type { Segment, SegmentMatch } from '../../domain/segment.ts';
import { sharedCompiled } from '../../evaluation/shared-compiled.ts';
import type {
  StoredAccount,
  StoredApiKey,
  StoredInvitation,
  StoredPasswordReset,
  StoredSession,
} from '../store.ts';
import type {
  AccountsTable,
  ApiKeysTable,
  AuditEventsTable,
  EnvironmentsTable,
  FlagsTable,
  InvitationsTable,
  PasswordResetsTable,
  ProjectsTable,
  SegmentsTable,
  SessionsTable,
} from './database.ts';

/** Row ↔ domain mapping: the only place that knows column names and JSON-in-text encoding. */

export const projectFromRow = (row: ProjectsTable): Project => ({
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description,
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const projectToRow = (p: Project): ProjectsTable => ({
  id: p.id,
  key: p.key,
  name: p.name,
  description: p.description,
  version: p.version,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

export const environmentFromRow = (row: EnvironmentsTable): Environment => ({
  id: row.id,
  projectId: row.project_id,
  key: row.key,
  name: row.name,
  description: row.description,
  protected: Number(row.protected) === 1,
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const environmentToRow = (e: Environment): EnvironmentsTable => ({
  id: e.id,
  project_id: e.projectId,
  key: e.key,
  name: e.name,
  description: e.description,
  protected: e.protected ? 1 : 0,
  version: e.version,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

/**
 * How many distinct texts each cache below remembers before it starts again: enough for the
 * configurations a large project repeats, little beside them (the texts are the cache's cost).
 */
const DISTINCT_TEXTS = 4096;

/**
 * A flag's JSON columns repeat across rows: most flags have the same variants (`on`/`off`), no
 * tags, no metadata, and the same configuration in most environments. Each text is parsed once
 * and the value shared, frozen so that no reader can change what the others see (decision 2091):
 * a node holds every flag as stored, and 10,000 copies of `[{"key":"on",…}]` were a third of it.
 */
const parsedOnce = sharedCompiled((text: string): unknown => deepFreeze(JSON.parse(text)), DISTINCT_TEXTS);

/** The project id and the timestamps a batch of writes shares: one string for the rows that repeat it. */
const sharedText = sharedCompiled((text: string) => text, DISTINCT_TEXTS);

export const flagFromRow = (row: FlagsTable, environments: Record<string, FlagEnvironment>): Flag => ({
  id: row.id,
  projectId: sharedText(row.project_id),
  key: row.key,
  // flagd files name flags by key alone: the name is the key, kept once.
  name: row.name === row.key ? row.key : row.name,
  description: row.description,
  type: row.type as FlagType,
  variants: parsedOnce(row.variants) as Flag['variants'],
  tags: parsedOnce(row.tags) as Flag['tags'],
  archived: Number(row.archived) === 1,
  metadata: parsedOnce(row.metadata) as Flag['metadata'],
  version: Number(row.version),
  createdAt: sharedText(row.created_at),
  updatedAt: sharedText(row.updated_at),
  environments,
});

export const flagToRow = (f: Flag): FlagsTable => ({
  id: f.id,
  project_id: f.projectId,
  key: f.key,
  name: f.name,
  description: f.description,
  type: f.type,
  variants: JSON.stringify(f.variants),
  tags: JSON.stringify(f.tags),
  archived: f.archived ? 1 : 0,
  metadata: JSON.stringify(f.metadata),
  version: f.version,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

/** One frozen configuration per distinct text and switch, shared by every flag and environment that has it. */
export const flagEnvironmentFromRow: (row: { enabled: number; config: string }) => FlagEnvironment =
  sharedCompiled(
    (row) => deepFreeze({ ...JSON.parse(row.config), enabled: Number(row.enabled) === 1 }),
    DISTINCT_TEXTS,
    (row) => `${Number(row.enabled)}${row.config}`,
  );

export const flagEnvironmentToColumns = ({ enabled, ...config }: FlagEnvironment) => ({
  enabled: enabled ? 1 : 0,
  config: JSON.stringify(config),
});

export const segmentFromRow = (row: SegmentsTable): Segment => ({
  id: row.id,
  projectId: row.project_id,
  key: row.key,
  name: row.name,
  description: row.description,
  match: row.match as SegmentMatch,
  rules: JSON.parse(row.rules),
  included: JSON.parse(row.included),
  excluded: JSON.parse(row.excluded),
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const segmentToRow = (s: Segment): SegmentsTable => ({
  id: s.id,
  project_id: s.projectId,
  key: s.key,
  name: s.name,
  description: s.description,
  match: s.match,
  rules: JSON.stringify(s.rules),
  included: JSON.stringify(s.included),
  excluded: JSON.stringify(s.excluded),
  version: s.version,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

export const apiKeyFromRow = (row: ApiKeysTable): StoredApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  secretHash: row.secret_hash,
  projectId: row.project_id,
  role: row.role as Role,
  environments: row.environments === null ? null : JSON.parse(row.environments),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

export const withoutSecret = ({ secretHash: _, ...key }: StoredApiKey): ApiKey => key;

export const apiKeyToRow = (k: StoredApiKey): ApiKeysTable => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  secret_hash: k.secretHash,
  project_id: k.projectId,
  role: k.role,
  environments: k.environments === null ? null : JSON.stringify(k.environments),
  created_at: k.createdAt,
  expires_at: k.expiresAt,
  last_used_at: k.lastUsedAt,
  revoked_at: k.revokedAt,
});

const jsonOrNull = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export const auditEventToRow = (projectId: string | null, e: AuditEvent): AuditEventsTable => ({
  id: e.id,
  project_id: projectId,
  at: e.at,
  actor: JSON.stringify(e.actor),
  actor_id: e.actor.id,
  action: e.action,
  resource_type: e.resource.type,
  resource_id: e.resource.id,
  resource_key: e.resource.key,
  subject_id: e.resource.subjectId ?? null,
  environment: e.environment ?? null,
  before: jsonOrNull(e.before),
  after: jsonOrNull(e.after),
  request_id: e.requestId,
  details: e.details === undefined ? null : JSON.stringify(e.details),
});

export const auditEventFromRow = (row: AuditEventsTable): AuditEvent => ({
  id: row.id,
  projectId: row.project_id,
  at: row.at,
  actor: JSON.parse(row.actor),
  action: row.action,
  resource: {
    type: row.resource_type,
    id: row.resource_id,
    key: row.resource_key,
    ...(row.subject_id === null || row.subject_id === undefined ? {} : { subjectId: row.subject_id }),
  },
  ...(row.environment === null ? {} : { environment: row.environment }),
  before: row.before === null ? null : JSON.parse(row.before),
  after: row.after === null ? null : JSON.parse(row.after),
  requestId: row.request_id,
  ...(row.details === null || row.details === undefined ? {} : { details: JSON.parse(row.details) }),
});

export const accountFromRow = (row: AccountsTable): StoredAccount => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  role: row.role as Role,
  projectId: row.project_id,
  createdAt: row.created_at,
  lastLoginAt: row.last_login_at,
  version: Number(row.version),
  active: Number(row.active) === 1,
  sso:
    row.oidc_issuer === null || row.oidc_subject === null
      ? null
      : {
          issuer: row.oidc_issuer,
          subject: row.oidc_subject,
          roles: row.sso_roles === null ? [] : (JSON.parse(row.sso_roles) as MappedRole[]),
        },
  externalId: row.external_id,
});

export const accountToRow = (a: StoredAccount): AccountsTable => ({
  id: a.id,
  email: a.email,
  name: a.name,
  password_hash: a.passwordHash,
  role: a.role,
  project_id: a.projectId,
  created_at: a.createdAt,
  last_login_at: a.lastLoginAt,
  version: a.version,
  active: a.active ? 1 : 0,
  oidc_issuer: a.sso?.issuer ?? null,
  oidc_subject: a.sso?.subject ?? null,
  sso_roles: a.sso === null ? null : JSON.stringify(a.sso.roles),
  external_id: a.externalId,
});

/** What records that carry a secret token share (invitations, sessions, reset links): id, token hash, lifetime. */
const tokenFromRow = (row: { id: string; token_hash: string; created_at: string; expires_at: string }) => ({
  id: row.id,
  tokenHash: row.token_hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

const tokenToRow = (record: { id: string; tokenHash: string; createdAt: string; expiresAt: string }) => ({
  id: record.id,
  token_hash: record.tokenHash,
  created_at: record.createdAt,
  expires_at: record.expiresAt,
});

export const invitationFromRow = (row: InvitationsTable): StoredInvitation => ({
  ...tokenFromRow(row),
  email: row.email,
  role: row.role as Role,
  projectId: row.project_id,
  invitedBy: JSON.parse(row.invited_by) as Invitation['invitedBy'],
  acceptedAt: row.accepted_at,
});

export const invitationToRow = (i: StoredInvitation): InvitationsTable => ({
  ...tokenToRow(i),
  email: i.email,
  role: i.role,
  project_id: i.projectId,
  invited_by: JSON.stringify(i.invitedBy),
  accepted_at: i.acceptedAt,
});

export const sessionFromRow = (row: SessionsTable): StoredSession => ({
  accountId: row.account_id,
  ...tokenFromRow(row),
});

export const sessionToRow = (s: StoredSession): SessionsTable => ({
  account_id: s.accountId,
  by_password: s.singleSignOn === true ? 0 : 1,
  ...tokenToRow(s),
});

export const passwordResetFromRow = (row: PasswordResetsTable): StoredPasswordReset => ({
  accountId: row.account_id,
  createdBy: JSON.parse(row.created_by) as PasswordReset['createdBy'],
  usedAt: row.used_at,
  ...tokenFromRow(row),
});

export const passwordResetToRow = (r: StoredPasswordReset): PasswordResetsTable => ({
  account_id: r.accountId,
  created_by: JSON.stringify(r.createdBy),
  used_at: r.usedAt,
  ...tokenToRow(r),
});
