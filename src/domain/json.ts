import type { JsonValue } from './flag.ts';

/** A JSON object: not null, not an array. The one test for it, wherever JSON arrives. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** isPlainObject for a value that came from parsed JSON, whose fields are therefore JSON too. */
export const isJsonObject = isPlainObject as (value: unknown) => value is { [key: string]: JsonValue };

/** A key as one token of a JSON pointer (RFC 6901): `~` and `/` escaped, in that order. */
export const pointerToken = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The key a token of a JSON pointer names: pointerToken undone, `~1` first. */
export const keyOfPointerToken = (token: string): string => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** Freezes `value` and everything in it, so that a value shared by many readers cannot be changed by one. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
