/** How deep JSON may nest wherever Flagstaff walks it recursively (targeting, imported documents). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep (a scalar is depth 0,
 * `[]` and `{}` depth 1). Iterative, so that a hostile document cannot overflow the stack here;
 * code that recurses over JSON checks this first.
 */
export function nestsDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
