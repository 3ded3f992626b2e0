import { pointerToken } from './json.ts';

/**
 * U+0000 in a string: PostgreSQL cannot store it in text, and nothing a person writes holds one,
 * so the API refuses it in every string it takes, on either database (decision 1900).
 */
export const NUL_REFUSED = 'must not contain the NUL character (\\u0000)';

/** Where a value holds NUL: the JSON pointer of the string, or of the object whose field name holds it. */
export interface NulFound {
  readonly pointer: string;
  /** The NUL is in a field name of the object at `pointer`, not in a value. */
  readonly inName: boolean;
}

/** The words of a refusal at `found`, beside its pointer. */
export const nulMessage = (found: NulFound): string =>
  found.inName ? `a field name ${NUL_REFUSED}` : NUL_REFUSED;

/**
 * The first string (or field name) holding NUL in a JSON-like value, depth first; undefined when
 * none does. Iterative, so a deep value cannot exhaust the stack.
 */
export function findNul(value: unknown): NulFound | undefined {
  const pending: Array<{ value: unknown; pointer: string }> = [{ value, pointer: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: at, pointer } = next;
    if (typeof at === 'string') {
      if (at.includes('\u0000')) return { pointer, inName: false };
      continue;
    }
    if (typeof at !== 'object' || at === null) continue;
    const entries = Array.isArray(at) ? at.map((v, i) => [String(i), v] as const) : Object.entries(at);
    if (!Array.isArray(at) && entries.some(([name]) => name.includes('\u0000'))) {
      return { pointer, inName: true };
    }
    // Reversed, so that the first field is looked at first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [name, child] = entries[i] as readonly [string, unknown];
      pending.push({ value: child, pointer: `${pointer}/${pointerToken(name)}` });
    }
  }
  return undefined;
}
