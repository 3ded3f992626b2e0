import { Type } from 'typebox';
import { REASONS } from '../evaluation-result.ts';
import { FlagTypeSchema } from './flag-input.ts';
import { Json, OneOf } from './kit.ts';
import { ConditionSchema } from './rules.ts';

// An evaluation's result, and what decided it (the playground, the user view), as the API
// answers them: the wire contract the dashboard reads (decision 1870).

export const EvaluationResultSchema = Type.Object({
  key: Type.String(),
  type: FlagTypeSchema,
  value: Json('Of the flag type; null when the served variant is null.'),
  reason: OneOf(REASONS),
  variant: Type.Union([Type.String(), Type.Null()]),
  errorCode: Type.Optional(
    OneOf(['PARSE_ERROR'], { description: 'With reason `error`: why the flag cannot be evaluated.' }),
  ),
  errorMessage: Type.Optional(
    Type.String({ description: 'With reason `error`: what is wrong, for people.' }),
  ),
});

/** What decided an evaluation, beside its result: the playground's answer for one flag. */
export const ExplanationSchema = Type.Object({
  ...EvaluationResultSchema.properties,
  ruleId: Type.Union([Type.String(), Type.Null()], {
    description: 'The targeting rule that matched, if one did.',
  }),
  targetMatched: Type.Boolean({ description: "The user is in the flag's individual targets." }),
  failedPrerequisite: Type.Union([Type.String(), Type.Null()], {
    description: 'The prerequisite flag that did not serve a required variant, if one did not.',
  }),
  ofrepErrorCode: Type.Union([Type.Literal('TARGETING_KEY_MISSING'), Type.Null()], {
    description:
      'What OFREP answers instead of this result for the same context, if it differs: TARGETING_KEY_MISSING when only a targetingKey was missing to split users.',
  }),
});

export const MatchedRuleSchema = Type.Object(
  {
    number: Type.Integer({ minimum: 1, description: "The rule's place in the environment's list, from 1." }),
    id: Type.String(),
    description: Type.Optional(Type.String()),
    matchAll: Type.Boolean(),
    segments: Type.Array(Type.String(), { description: 'The user is in every one of these segments.' }),
    conditions: Type.Array(ConditionSchema, { description: 'Every one of these holds for the user.' }),
  },
  { description: 'The rule that matched, as stored; null when no rule decided.' },
);

/** `POST /projects/{p}/explain`: every flag for one user, with the rule (as stored) that decided each. */
export const UserViewSchema = Type.Object({
  environment: Type.String(),
  flags: Type.Array(
    Type.Object({
      ...ExplanationSchema.properties,
      name: Type.String(),
      rule: Type.Union([MatchedRuleSchema, Type.Null()]),
    }),
  ),
});
