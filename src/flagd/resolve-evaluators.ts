import type { FieldError } from '../domain/errors.ts';
import type { JsonValue } from '../domain/flag.ts';

type JsonObject = { [key: string]: JsonValue };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The evaluator name of a `{"$ref": "name"}` object, as flagd matches it (that object exactly). */
function referenceOf(value: JsonValue): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$ref' && typeof value.$ref === 'string' ? value.$ref : undefined;
}

/**
 * Inlines `{"$ref": name}` references to `$evaluators`, recursively, so that targeting stands alone.
 * flagd substitutes references once, in a fixed order; we resolve references inside evaluators too,
 * which gives flagd's result whenever flagd resolves them at all. Unknown names and cycles are errors.
 */
export function resolveEvaluators(
  logic: JsonValue,
  evaluators: Readonly<Record<string, JsonValue>>,
  path: string,
): { readonly value: JsonValue; readonly errors: FieldError[] } {
  const errors: FieldError[] = [];
  const resolve = (value: JsonValue, at: string, chain: readonly string[]): JsonValue => {
    const name = referenceOf(value);
    if (name !== undefined) {
      if (!Object.hasOwn(evaluators, name)) {
        errors.push({ path: at, message: `$ref names no evaluator: "${name}"` });
        return value;
      }
      if (chain.includes(name)) {
        errors.push({ path: at, message: `$ref cycle: ${[...chain, name].join(' → ')}` });
        return value;
      }
      return resolve(evaluators[name] as JsonValue, at, [...chain, name]);
    }
    if (Array.isArray(value)) return value.map((item, i) => resolve(item, `${at}/${i}`, chain));
    if (isObject(value)) {
      const result: JsonObject = {};
      for (const [key, item] of Object.entries(value)) {
        result[key] = resolve(item, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, chain);
      }
      return result;
    }
    return value;
  };
  const value = resolve(logic, path, []);
  return { value, errors };
}
