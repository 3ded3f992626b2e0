// The user view's context (docs/decisions/1810): typed as a targeting key and attribute rows, or
// as JSON, and kept in the page's address so it can be shared. Pure, so it is unit-tested
// (user-context.test.ts).

export type Context = Readonly<Record<string, unknown>>;

/** One attribute as typed: its value as text (see `rowValue`). */
export interface AttributeRow {
  readonly id: number;
  readonly name: string;
  readonly value: string;
}

export interface ContextProblem {
  readonly path: string;
  readonly message: string;
}

export type Parsed = { readonly context: Context } | { readonly errors: readonly ContextProblem[] };

let rowIds = 0;
export const newRow = (name = '', value = ''): AttributeRow => ({ id: ++rowIds, name, value });

export const isObject = (value: unknown): value is Context =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A row's text as the value sent: what reads as JSON (a number, true, false, null, a list, an
 * object, "quoted text") is sent as that, anything else as the text itself. So `42` is a number,
 * `NL` is text, and `"42"` is the text 42.
 */
export function rowValue(text: string): unknown {
  if (text.trim() === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A value as a row's text, which `rowValue` reads back as the same value. */
export const rowText = (value: unknown): string =>
  typeof value === 'string' && rowValue(value) === value ? value : JSON.stringify(value);

/** The context the key and rows make; blank rows are skipped, and a name twice or a nameless value refused. */
export function contextOfRows(targetingKey: string, rows: readonly AttributeRow[]): Parsed {
  const context: Record<string, unknown> = {};
  const errors: ContextProblem[] = [];
  if (targetingKey !== '') context.targetingKey = targetingKey;
  rows.forEach((row, index) => {
    const name = row.name.trim();
    const path = `/attributes/${index}/name`;
    if (name === '') {
      if (row.value.trim() !== '') errors.push({ path, message: 'is required for a value' });
      return;
    }
    if (name === 'targetingKey')
      errors.push({ path, message: 'is the targeting key: type it in its own field' });
    else if (Object.hasOwn(context, name)) errors.push({ path, message: `"${name}" appears twice` });
    else context[name] = rowValue(row.value);
  });
  return errors.length > 0 ? { errors } : { context };
}

/** The key and rows that make `context` (a targetingKey that is not text becomes a row, to keep it). */
export function rowsOfContext(context: Context): { targetingKey: string; rows: AttributeRow[] } {
  const { targetingKey, ...attributes } = context;
  const keyIsText = typeof targetingKey === 'string' || targetingKey === undefined;
  const rows = Object.entries(keyIsText ? attributes : context).map(([name, value]) =>
    newRow(name, rowText(value)),
  );
  return { targetingKey: keyIsText ? (targetingKey ?? '') : '', rows };
}

/** JSON text typed as the whole context: it must be an object. */
export function contextOfJson(text: string): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { errors: [{ path: '/context', message: 'must be JSON text, e.g. {"targetingKey": "user-1"}' }] };
  }
  return isObject(parsed)
    ? { context: parsed }
    : { errors: [{ path: '/context', message: 'must be a JSON object, e.g. {"targetingKey": "user-1"}' }] };
}

/** The page's query for an environment and a context: what a shared link carries. */
export const contextQuery = (environment: string, context: Context): string =>
  `?${new URLSearchParams({ environment, context: JSON.stringify(context) })}`;

/** What a page address names: its environment and context, each absent when missing or unreadable. */
export function contextOfQuery(search: string): { environment?: string; context?: Context } {
  const query = new URLSearchParams(search);
  const environment = query.get('environment') ?? undefined;
  const text = query.get('context');
  const parsed = text === null ? undefined : contextOfJson(text);
  return {
    ...(environment === undefined ? {} : { environment }),
    ...(parsed !== undefined && 'context' in parsed ? { context: parsed.context } : {}),
  };
}
