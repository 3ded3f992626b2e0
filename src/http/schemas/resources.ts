import { Type } from 'typebox';
import { ROLES } from '../../domain/api-key.ts';
import { RuleSchema } from '../../domain/schemas/rules.ts';
import { Match } from '../../domain/schemas/segment-input.ts';
import { Closed, Description, Id, Key, Name, OneOf, Timestamp, Version } from './common.ts';

// The segment request bodies are the domain's, so the service takes their static types (decision 1053).
export { CreateSegmentSchema, PatchSegmentSchema } from '../../domain/schemas/segment-input.ts';

export const ProjectSchema = Type.Object({
  id: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateProjectSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  environments: Type.Optional(
    Type.Array(Closed({ key: Key, name: Type.Optional(Name) }), { minItems: 1, maxItems: 50 }),
  ),
});

export const PatchProjectSchema = Closed({
  name: Type.Optional(Name),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
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

export const CreateEnvironmentSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  protected: Type.Optional(Type.Boolean()),
  copyFrom: Type.Optional(Key),
});

export const PatchEnvironmentSchema = Closed({
  ...PatchProjectSchema.properties,
  requiredApprovals: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 5,
      description: 'Approvals a non-admin change to flags here needs before it is written; admins only.',
    }),
  ),
  protected: Type.Optional(Type.Boolean()),
});

export const SegmentSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  match: Match,
  rules: Type.Array(RuleSchema),
  included: Type.Array(Type.String()),
  excluded: Type.Array(Type.String()),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Role = OneOf(ROLES);

export const ApiKeySchema = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String(),
  projectId: Type.Union([Id, Type.Null()]),
  role: Role,
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

export const CreateApiKeySchema = Closed({
  name: Name,
  role: Role,
  environments: Type.Optional(
    Type.Union([Type.Array(Key, { minItems: 1, maxItems: 50, uniqueItems: true }), Type.Null()]),
  ),
  expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
});

export const AuditEventSchema = Type.Object({
  id: Id,
  projectId: Type.Optional(
    Type.Union([Id, Type.Null()], {
      description: "The project whose log holds it; null: the organisation's.",
    }),
  ),
  at: Timestamp,
  actor: Type.Object({ type: Type.String(), id: Type.String(), name: Type.String() }),
  action: Type.String(),
  resource: Type.Object({
    type: Type.String(),
    id: Type.String(),
    key: Type.Union([Type.String(), Type.Null()]),
  }),
  environment: Type.Optional(Type.String()),
  before: Type.Unknown(),
  after: Type.Unknown(),
  requestId: Type.String(),
  details: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
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
