import { type Static, Type } from 'typebox';
import { FLAG_TYPES } from '../flag.ts';
import { Closed, Description, Json, Key, Name, OneOf } from './kit.ts';
import { RolloutSchema, TargetingRuleSchema } from './rules.ts';

// What a client sends to create or patch a flag (docs/product.md §4): the request-body schemas of the HTTP
// API, and through Static<…> the types FlagService takes. Any JSON is a JsonValue, so fields that
// take any JSON say so in their static type without changing the schema ({}).

export const FlagTypeSchema = OneOf(FLAG_TYPES);

export const VariantSchema = Closed({
  key: Key,
  value: Json('A value of the flag type.'),
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
  targeting: Type.Optional(Json('flagd JsonLogic targeting, instead of rules.')),
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

export type CreateFlagInput = Static<typeof CreateFlagSchema>;
/** A merge patch of a flag's configuration in one environment. */
export type FlagEnvironmentPatch = Static<typeof FlagEnvironmentPatchSchema>;
/** A merge patch of a flag (docs/product.md §4): flag fields, environment fields for `?environment=`, or `environments`. */
export type FlagPatch = Static<typeof PatchFlagSchema>;
