import { type Static, Type } from 'typebox';
import { Closed, Description, Key, Name, OneOf } from './kit.ts';
import { RuleSchema } from './rules.ts';

// What a client sends to create or patch a segment (docs/product.md §4): the request-body schemas of the
// HTTP API, and through Static<…> the types SegmentService takes.

export const TargetingKeys = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
  maxItems: 10_000,
  uniqueItems: true,
});
export const Match = OneOf(['all', 'any']);

export const CreateSegmentSchema = Closed({
  key: Key,
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  match: Type.Optional(Match),
  rules: Type.Optional(Type.Array(RuleSchema, { maxItems: 100 })),
  included: Type.Optional(TargetingKeys),
  excluded: Type.Optional(TargetingKeys),
});

export const PatchSegmentSchema = Closed({
  name: Type.Optional(Name),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  match: Type.Optional(Type.Union([Match, Type.Null()])),
  rules: Type.Optional(Type.Union([Type.Array(RuleSchema, { maxItems: 100 }), Type.Null()])),
  included: Type.Optional(Type.Union([TargetingKeys, Type.Null()])),
  excluded: Type.Optional(Type.Union([TargetingKeys, Type.Null()])),
});

export type CreateSegmentInput = Static<typeof CreateSegmentSchema>;
/** A merge patch of a segment (docs/product.md §4): null removes a field, which then takes its default. */
export type SegmentPatch = Static<typeof PatchSegmentSchema>;
