import { Type } from 'typebox';
import { FlagTypeSchema, VariantSchema } from '../../domain/schemas/flag-input.ts';
import { Id, Key, OneOf, Timestamp, Version } from './common.ts';

// The request bodies are the domain's, so the services take their static types (decision 1053).
export {
  CreateFlagSchema,
  FlagEnvironmentPatchSchema,
  FlagTypeSchema,
  PatchFlagSchema,
  VariantSchema,
} from '../../domain/schemas/flag-input.ts';

const LastEvaluatedAt = Type.Union([Timestamp, Type.Null()], {
  description:
    'The minute of the last evaluation counted for insights; null: not evaluated (kept since counting began).',
});

export const StalenessSchema = Type.Union(
  [
    Type.Object({
      reason: OneOf(['not_evaluated', 'single_variant']),
      detail: Type.String(),
      variant: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
    Type.Null(),
  ],
  {
    description:
      'Why the flag is stale in this environment (docs/product.md §10: not evaluated for 30 days, or serving one variant to everyone for 30 days); null: not stale.',
  },
);

export const FlagSummarySchema = Type.Object({
  id: Id,
  key: Key,
  name: Type.String(),
  type: FlagTypeSchema,
  enabled: Type.Boolean({
    description: 'State in the environment named by ?environment= (default production).',
  }),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  archived: Type.Boolean(),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastEvaluatedAt: Type.Optional(LastEvaluatedAt),
  stale: Type.Optional(StalenessSchema),
  environments: Type.Optional(
    Type.Record(Key, Type.Object({ enabled: Type.Boolean(), lastEvaluatedAt: LastEvaluatedAt }), {
      description:
        'The state and last evaluation of the flag in each environment, by key: a page of flags in every environment in one request.',
    }),
  ),
});

export const FlagSchema = Type.Object({
  id: Id,
  projectId: Id,
  key: Key,
  name: Type.String(),
  description: Type.String(),
  type: FlagTypeSchema,
  variants: Type.Array(VariantSchema),
  tags: Type.Array(Type.String()),
  archived: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  environments: Type.Record(Type.String(), Type.Unknown()),
  lastEvaluatedAt: Type.Optional(
    Type.Record(Type.String(), LastEvaluatedAt, { description: 'Per environment key (in GET responses).' }),
  ),
});
