/**
 * Splits a `var`/`missing` path on dots exactly as flagd's JSON-logic engine does: `\.` escapes a
 * dot, `\\` a backslash, `\/` a slash; `""` yields no segment and `"."` one empty segment.
 */
export function splitPath(path: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const char = path[i];
    if (char === '\\') {
      const next = path[i + 1];
      if (next === '.' || next === '/') {
        current += next;
        i++;
      } else if (next === '\\') {
        current += '\\';
        i++;
      } else {
        current += '\\';
      }
    } else if (char === '.') {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  // The engine pushes the tail only when fewer parts than characters were produced ("." → [""]).
  if (parts.length !== path.length) parts.push(current);
  return parts;
}
