/** Resource keys (docs/product.md §2): case-sensitive, unique within their scope. */
/** The longest key (projects, environments, flags, segments). */
export const KEY_MAX_LENGTH = 128;
export const KEY_PATTERN = `^[A-Za-z0-9][A-Za-z0-9._-]{0,${KEY_MAX_LENGTH - 1}}$`;
/**
 * The longest path part the router accepts: keys travel in paths, and their characters are all
 * unreserved (never percent-encoded), so the longest key is the longest part; ids are shorter.
 */
export const MAX_PATH_PART_LENGTH = KEY_MAX_LENGTH;
export const KEY_REGEX = new RegExp(KEY_PATTERN);
/** The key pattern in words: the API's message for a key that does not match, and the forms' hint. */
export const KEY_RULE = `Letters, digits, ".", "_" and "-", starting with a letter or digit; at most ${KEY_MAX_LENGTH} characters.`;
export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2000;
