import { Type } from 'typebox';
import { KEY_ROLES, ROLES } from '../api-key.ts';
import { Id, Json, Key, OneOf, PersonSchema, Timestamp, Version } from './kit.ts';
import { ConditionSchema } from './rules.ts';
import { Match } from './segment-input.ts';

// Projects, environments, segments, API keys and audit events as the API answers them: the wire
// contract whose static types the dashboard and the CLI read (decision 1870).

export const RoleSchema = OneOf(ROLES);

/** An API key's role: the ladder's, or `edge` (decision 1980). */
export const KeyRoleSchema = OneOf(KEY_ROLES);

export const ProjectSchema = Type.Object({
  id: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const EnvironmentSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  protected: Type.Boolean({
    description: 'Changes here ask for confirmation in the dashboard. Default: true for `production`.',
  }),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastEvaluatedAt: Type.Optional(
    Type.Union([Timestamp, Type.Null()], {
      description: 'The minute of the last evaluation of any flag here (in lists); null: none counted.',
    }),
  ),
  requiredApprovals: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 5,
      description: 'Approvals a flag change here needs (docs/product.md §10).',
    }),
  ),
});

export const SegmentSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  match: Match,
  rules: Type.Array(ConditionSchema),
  included: Type.Array(Type.String()),
  excluded: Type.Array(Type.String()),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ApiKeySchema = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String(),
  projectId: Type.Union([Id, Type.Null()]),
  role: KeyRoleSchema,
  environments: Type.Union([Type.Array(Type.String()), Type.Null()]),
  createdAt: Timestamp,
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  lastUsedAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});

export const CreatedApiKeySchema = Type.Object({
  ...ApiKeySchema.properties,
  secret: Type.String({ description: 'Shown once: store it now.' }),
});

export const AuditEventSchema = Type.Object({
  id: Id,
  projectId: Type.Optional(
    Type.Union([Id, Type.Null()], {
      description: "The project whose log holds it; null: the organisation's.",
    }),
  ),
  at: Timestamp,
  actor: PersonSchema,
  action: Type.String(),
  resource: Type.Object({
    type: Type.String(),
    id: Type.String(),
    key: Type.Union([Type.String(), Type.Null()]),
    subjectId: Type.Optional(
      Type.String({ description: "A change request's: the flag or segment it would change." }),
    ),
  }),
  environment: Type.Optional(Type.String()),
  before: Json('The resource before the change, as the API answered it then; null when created.'),
  after: Json('The resource after the change; null when deleted.'),
  requestId: Type.String(),
  details: Type.Optional(
    Type.Record(Type.String(), Json('One thing more the event says.'), {
      description: 'What else the event says, e.g. the scheduled change that made a write and its delay.',
    }),
  ),
});

const SegmentUser = { id: Id, key: Key, name: Type.String() };

export const SegmentUsersSchema = Type.Object({
  flags: Type.Array(
    Type.Object({
      ...SegmentUser,
      environments: Type.Array(Key, { description: 'Where a rule of the flag uses the segment.' }),
    }),
  ),
  segments: Type.Array(Type.Object(SegmentUser)),
});

/** One environment's selector for a flagd in-process provider (`GET /api-keys/{id}/flagd-sync`). */
export const SyncSelectorSchema = Type.Object({
  environment: Type.String(),
  selector: Type.String({
    description:
      'The selector for a flagd in-process provider: `<project>/<environment>#<sync credential>`. The credential can read this environment’s flag definitions over flagd sync and nothing else; revoking the key revokes it.',
  }),
});
