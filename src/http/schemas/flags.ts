import { Type } from 'typebox';
import { FLAG_TYPES } from '../../domain/flag.ts';
import { Closed, Description, Id, Key, Name, OneOf, Timestamp, Version } from './common.ts';
import { RolloutSchema, TargetingRuleSchema } from './rules.ts';

export const FlagTypeSchema = OneOf(FLAG_TYPES);

export const VariantSchema = Closed({
  key: Key,
  value: Type.Unknown({ description: 'A value of the flag type.' }),
  name: Type.Optional(Name),
  description: Type.Optional(Description),
});

const Tags = Type.Array(Key, { maxItems: 50, uniqueItems: true });
const Metadata = Type.Record(
  Type.String({ maxLength: 128 }),
  Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean()]),
  {
    maxProperties: 50,
  },
);

const TargetsSchema = Type.Array(
  Closed({
    variant: Key,
    values: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 10_000 }),
  }),
  { maxItems: 100 },
);

const PrerequisitesSchema = Type.Array(
  Closed({
    flag: Key,
    variants: Type.Array(Key, {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      description: 'The required flag must serve one of these.',
    }),
  }),
  { maxItems: 20, description: 'Flags that must serve one of the listed variants for this one to run.' },
);

/** Fields of a flag's configuration in one environment, as sent in a merge patch (null removes). */
export const FlagEnvironmentPatchSchema = Closed({
  enabled: Type.Optional(Type.Boolean()),
  offVariant: Type.Optional(Type.Union([Key, Type.Null()])),
  defaultVariant: Type.Optional(Type.Union([Key, Type.Null()])),
  defaultRollout: Type.Optional(Type.Union([RolloutSchema, Type.Null()])),
  targets: Type.Optional(Type.Union([TargetsSchema, Type.Null()])),
  rules: Type.Optional(Type.Union([Type.Array(TargetingRuleSchema, { maxItems: 200 }), Type.Null()])),
  targeting: Type.Optional(Type.Unknown({ description: 'flagd JsonLogic targeting, instead of rules.' })),
  prerequisites: Type.Optional(Type.Union([PrerequisitesSchema, Type.Null()])),
});

export const CreateFlagSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  type: Type.Optional(FlagTypeSchema),
  description: Type.Optional(Description),
  variants: Type.Optional(Type.Array(VariantSchema, { minItems: 1, maxItems: 100 })),
  tags: Type.Optional(Tags),
  metadata: Type.Optional(Metadata),
});

export const PatchFlagSchema = Closed({
  name: Type.Optional(Name),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  type: Type.Optional(FlagTypeSchema),
  variants: Type.Optional(Type.Array(VariantSchema, { minItems: 1, maxItems: 100 })),
  tags: Type.Optional(Type.Union([Tags, Type.Null()])),
  metadata: Type.Optional(
    Type.Union([Type.Record(Type.String({ maxLength: 128 }), Type.Unknown()), Type.Null()]),
  ),
  archived: Type.Optional(Type.Boolean()),
  environments: Type.Optional(Type.Record(Key, FlagEnvironmentPatchSchema)),
  ...FlagEnvironmentPatchSchema.properties,
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
      'Why the flag is stale in this environment (SPEC §10: not evaluated for 30 days, or serving one variant to everyone for 30 days); null: not stale.',
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
