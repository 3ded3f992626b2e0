/** A JSON object: not null, not an array. The one test for it, wherever JSON arrives. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A key as one token of a JSON pointer (RFC 6901): `~` and `/` escaped, in that order. */
export const pointerToken = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');
