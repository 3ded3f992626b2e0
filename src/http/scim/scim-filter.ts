import { ScimError } from './scim-error.ts';

/**
 * A JSON string (RFC 7644 §3.4.2.2 takes its values from JSON): no raw control characters, and
 * only JSON's escapes, so a value that is not one is refused here rather than by JSON.parse.
 */
const STRING = String.raw`"((?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"`;

/** One equality filter, `<attribute> eq "<value>"`, the attribute as the resource spells it. */
export interface EqualityFilter<A extends string> {
  readonly attribute: A;
  readonly value: string;
}

/**
 * `<attribute> eq "…"` for one of the attributes a resource is looked up by (what Okta and Entra ID
 * send); attribute names are case-insensitive (RFC 7643 §2.1). Anything else is 400 invalidFilter.
 */
export function equalityFilter<A extends string>(
  filter: string,
  attributes: readonly A[],
): EqualityFilter<A> {
  const match = new RegExp(String.raw`^\s*([A-Za-z][\w.]*)\s+eq\s+${STRING}\s*$`, 'i').exec(filter);
  const attribute = attributes.find((a) => a.toLowerCase() === match?.[1]?.toLowerCase());
  if (match === null || attribute === undefined) {
    const supported = attributes.map((a) => `${a} eq "…"`).join(' or ');
    throw new ScimError(400, `Only the filter ${supported} is supported.`, 'invalidFilter');
  }
  return { attribute, value: JSON.parse(`"${match[2]}"`) as string };
}
