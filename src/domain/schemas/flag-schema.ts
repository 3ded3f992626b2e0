import { Type } from 'typebox';
import type { Serve } from '../flag.ts';
import { FlagTypeSchema, VariantSchema } from './flag-input.ts';
import { Id, Json, Key, OneOf, Timestamp, Version } from './kit.ts';
import { ConditionSchema, RolloutSchema, ServeSchema } from './rules.ts';

// A flag as the API answers it (docs/product.md §2, §4): the wire contract whose static types the
// dashboard and the CLI read (decision 1870). The fields are those of the stored flag; the
// serializer writes only what is named here, so every field of the domain's Flag is named.

/** A targeting rule as stored: its id given by the server, its lists always present. */
export const StoredTargetingRuleSchema = Type.Object({
  id: Type.String(),
  description: Type.Optional(Type.String()),
  matchAll: Type.Optional(Type.Boolean()),
  segments: Type.Array(Key),
  conditions: Type.Array(ConditionSchema),
  serve: Type.Unsafe<Serve>(ServeSchema),
});

/** A flag's configuration in one environment (domain FlagEnvironment). */
export const FlagEnvironmentSchema = Type.Object({
  enabled: Type.Boolean(),
  offVariant: Type.Union([Key, Type.Null()], { description: 'Served while disabled.' }),
  defaultVariant: Type.Union([Key, Type.Null()], { description: 'Served when no target or rule decides.' }),
  defaultRollout: Type.Optional(RolloutSchema),
  targets: Type.Array(Type.Object({ variant: Key, values: Type.Array(Type.String()) })),
  rules: Type.Array(StoredTargetingRuleSchema),
  targeting: Type.Optional(Json('flagd JsonLogic targeting; when present, rules and targets are not used.')),
  prerequisites: Type.Optional(Type.Array(Type.Object({ flag: Key, variants: Type.Array(Key) }))),
});

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

const FlagMetadataSchema = Type.Record(
  Type.String(),
  Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
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
  lastEvaluatedAt: LastEvaluatedAt,
  stale: StalenessSchema,
  codeReferences: Type.Integer({
    minimum: 0,
    description:
      'Where code names the flag, as `flagstaff refs` last reported each repository and branch: 0 for a stale flag means it is safe to remove.',
  }),
  environments: Type.Record(
    Key,
    Type.Object({
      enabled: Type.Boolean(),
      lastEvaluatedAt: LastEvaluatedAt,
      ...Type.Partial(Type.Omit(FlagEnvironmentSchema, ['enabled'])).properties,
    }),
    {
      description:
        'The state and last evaluation of the flag in each environment, by key: a page of flags in every environment in one request. With `?configuration=true`, also its whole configuration there, as GET of the flag gives it.',
    },
  ),
  projectId: Type.Optional(Id),
  variants: Type.Optional(Type.Array(VariantSchema, { description: 'With `?configuration=true`.' })),
  metadata: Type.Optional(FlagMetadataSchema),
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
  metadata: FlagMetadataSchema,
  version: Version,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  environments: Type.Record(Key, FlagEnvironmentSchema, { description: 'By environment key.' }),
  lastEvaluatedAt: Type.Optional(
    Type.Record(Type.String(), LastEvaluatedAt, { description: 'Per environment key (in GET responses).' }),
  ),
});

/** A flag that requires another as a prerequisite, and where (`GET /flags/{id}/dependants`). */
export const DependantSchema = Type.Object({ key: Key, environments: Type.Array(Key) });
