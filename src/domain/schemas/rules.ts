import { type Static, Type } from 'typebox';
import { OPERATORS, type Rule } from '../segment.ts';
import { Closed, Description, Key, OneOf } from './kit.ts';

const Scalar = Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean()]);

/**
 * One object shape for both rule types, rather than a union, so a mistake gets one precise
 * message; which fields each type needs is checked by the service (validate-rules.ts).
 */
export const RuleSchema = Closed({
  type: OneOf(['attribute', 'segment']),
  attribute: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  operator: Type.Optional(OneOf(OPERATORS)),
  value: Type.Optional(Scalar),
  values: Type.Optional(Type.Array(Scalar, { maxItems: 10_000 })),
  segment: Type.Optional(Key),
  negate: Type.Optional(Type.Boolean()),
});

/** A condition as sent: the fields its type needs are not checked yet (validate-rules.ts does). */
export type RuleInput = Static<typeof RuleSchema>;

/** A condition as stored and answered: the request's one shape on the wire, the domain's union in its static type. */
export const ConditionSchema = Type.Unsafe<Rule>(RuleSchema);

export const RolloutSchema = Closed({
  bucketBy: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  seed: Type.Optional(Type.String({ maxLength: 256 })),
  weights: Type.Array(Closed({ variant: Key, weight: Type.Integer({ minimum: 0, maximum: 1_000_000 }) }), {
    minItems: 1,
    maxItems: 100,
  }),
});

export const ServeSchema = Closed(
  { variant: Type.Optional(Key), rollout: Type.Optional(RolloutSchema) },
  { description: 'Exactly one of `variant` or `rollout`.' },
);

export const TargetingRuleSchema = Closed({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  description: Type.Optional(Description),
  matchAll: Type.Optional(
    Type.Boolean({
      description:
        'true: the rule serves everyone who reaches it. Required for a rule with no segments and no conditions, refused with them.',
    }),
  ),
  segments: Type.Optional(Type.Array(Key, { maxItems: 50 })),
  conditions: Type.Optional(Type.Array(RuleSchema, { maxItems: 50 })),
  serve: ServeSchema,
});

/** A targeting rule as sent: its conditions and what it serves are not checked yet (validateFlag does). */
export type TargetingRuleInput = Static<typeof TargetingRuleSchema>;
