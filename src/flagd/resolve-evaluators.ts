import type { FieldError } from '../domain/errors.ts';
import type { JsonValue } from '../domain/flag.ts';
import { isJsonObject, pointerToken } from '../domain/json.ts';
import { MAX_JSON_DEPTH } from '../domain/json-depth.ts';

type JsonObject = { [key: string]: JsonValue };

/** The evaluator name of a `{"$ref": "name"}` object, as flagd matches it (that object exactly). */
function referenceOf(value: JsonValue): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$ref' && typeof value.$ref === 'string' ? value.$ref : undefined;
}

/** Targeting with its `$ref`s inlined, and what stopped some of them from resolving. */
export interface ResolvedTargeting {
  /** References that resolve are inlined; those that do not are left as written. */
  readonly value: JsonValue;
  /** Unknown names and cycles: the targeting cannot work (flagd answers PARSE_ERROR). */
  readonly errors: readonly FieldError[];
  /** Set when inlining would nest the targeting deeper than MAX_JSON_DEPTH: nothing was inlined. */
  readonly tooDeep?: FieldError;
}

class TooDeep extends Error {}

/**
 * Inlines `{"$ref": name}` references to `$evaluators`, recursively, so that targeting stands alone.
 * flagd substitutes references once, in a fixed order; we resolve references inside evaluators too,
 * which gives flagd's result whenever flagd resolves them at all. Unknown names and cycles are
 * reported and left in place. The walk stops at MAX_JSON_DEPTH levels, references included, so
 * that no document can make it overflow the stack.
 */
export function resolveEvaluators(
  logic: JsonValue,
  evaluators: Readonly<Record<string, JsonValue>>,
  path: string,
): ResolvedTargeting {
  const errors: FieldError[] = [];
  const resolve = (value: JsonValue, at: string, chain: readonly string[], depth: number): JsonValue => {
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
      return resolve(evaluators[name] as JsonValue, at, [...chain, name], depth);
    }
    if (typeof value !== 'object' || value === null) return value;
    if (depth >= MAX_JSON_DEPTH) throw new TooDeep();
    if (Array.isArray(value)) return value.map((item, i) => resolve(item, `${at}/${i}`, chain, depth + 1));
    const result: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      result[key] = resolve(item, `${at}/${pointerToken(key)}`, chain, depth + 1);
    }
    return result;
  };
  try {
    return { value: resolve(logic, path, [], 0), errors };
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    const message = `nests deeper than ${MAX_JSON_DEPTH} levels once its $refs are inlined`;
    return { value: logic, errors: [], tooDeep: { path, message } };
  }
}
