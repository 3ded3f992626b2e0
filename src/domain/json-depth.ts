/**
 * How deep JSON in a request may nest (objects and arrays): far beyond any real evaluation
 * context, flag or flagd document, and low enough that no code walking it can exhaust the
 * stack. 10,000 levels of `{"a":` once answered 500 from a stack overflow (decision 0008).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests deeper than `max`: one pass over the characters, no parsing, no recursion. */
export function jsonTextNestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting deeper than `max` takes more than `max` brackets that open: most texts (an evaluation
  // context in a query string, on every request) have a handful, counted with native searches.
  if (!hasMoreThan(text, '{', '[', max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether `text` holds more than `limit` occurrences of `a` and `b` together. */
function hasMoreThan(text: string, a: string, b: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf(a); i !== -1; i = text.indexOf(a, i + 1)) if (++count > limit) return true;
  for (let i = text.indexOf(b); i !== -1; i = text.indexOf(b, i + 1)) if (++count > limit) return true;
  return false;
}

/**
 * Whether a value nests objects or arrays deeper than `max`, for values that did not arrive as
 * text. Iterative, and it stops at the first level too deep (so a cycle ends it too).
 */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > max) return true;
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
  return false;
}
