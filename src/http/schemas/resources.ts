import { Type } from 'typebox';
import { KeyRoleSchema } from '../../domain/schemas/resource-schemas.ts';
import { Closed, Description, Key, Name, Timestamp } from './common.ts';

// The segment request bodies and every answer are the domain's wire contract, so the service
// takes their static types (decision 1053) and the dashboard and the CLI read them (decision 1870).
export {
  ApiKeySchema,
  AuditEventSchema,
  CreatedApiKeySchema,
  EnvironmentSchema,
  ProjectSchema,
  SegmentSchema,
  SegmentUsersSchema,
} from '../../domain/schemas/resource-schemas.ts';
export { CreateSegmentSchema, PatchSegmentSchema } from '../../domain/schemas/segment-input.ts';

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

export const CreateApiKeySchema = Closed({
  name: Name,
  role: KeyRoleSchema,
  environments: Type.Optional(
    Type.Union([Type.Array(Key, { minItems: 1, maxItems: 50, uniqueItems: true }), Type.Null()]),
  ),
  expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
});
