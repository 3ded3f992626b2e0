import { type TProperties, type TUnsafe, Type } from 'typebox';
import { DESCRIPTION_MAX, KEY_PATTERN, NAME_MAX } from '../keys.ts';

// The building blocks of the request bodies that name a resource's fields. They live in the
// domain (TypeBox is a pure library, not a layer) so that the HTTP schemas and the services
// share one definition, and the services take the schemas' static types (decision 1053).

/** A closed object: unknown fields are refused (docs/product.md §4). */
export const Closed = <T extends TProperties>(properties: T, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const Key = Type.String({
  pattern: KEY_PATTERN,
  description: 'Letters, digits, ".", "_" and "-"; 1–128 characters; starts with a letter or digit.',
});
export const Name = Type.String({ minLength: 1, maxLength: NAME_MAX });
export const Description = Type.String({ maxLength: DESCRIPTION_MAX });

/** A string from a fixed list, as a plain JSON-schema `enum` (clear errors, exact static type). */
export const OneOf = <const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
