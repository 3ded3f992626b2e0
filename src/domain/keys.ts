/** Resource keys (docs/product.md §2): case-sensitive, unique within their scope. */
export const KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
export const KEY_REGEX = new RegExp(KEY_PATTERN);
export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2000;
