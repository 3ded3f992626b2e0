import { type TProperties, type TUnsafe, Type } from 'typebox';
import type { JsonValue } from '../flag.ts';
import { DESCRIPTION_MAX, KEY_PATTERN, NAME_MAX } from '../keys.ts';

// The building blocks of the wire contract: the request bodies and the answers that name a
// resource's fields. They live in the domain (TypeBox is a pure library, not a layer) so that the
// HTTP schemas, the services, the dashboard and the CLI share one definition, and each takes the
// schemas' static types (decisions 1053, 1870).

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

export const Id = Type.String({ description: 'Opaque id with a type prefix.' });
export const Timestamp = Type.String({ format: 'date-time' });
export const Version = Type.Integer({ minimum: 1 });

/** Any JSON value: `{}` as a schema, a JsonValue in its static type. */
export const Json = (description: string) => Type.Unsafe<JsonValue>({ description });

/** Who did something, as the audit log names people (an API key or an account) and a release plan's own steps. */
export const PersonSchema = Type.Object({
  type: OneOf(['api_key', 'user', 'release_plan']),
  id: Type.String(),
  name: Type.String(),
});
