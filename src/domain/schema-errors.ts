import type { ErrorObject } from 'ajv';
import type { FieldError } from './errors.ts';
import { KEY_PATTERN, KEY_RULE } from './keys.ts';

// A JSON-schema validator's errors as a person reads them beside the field: the API's answers
// (http/validation.ts) and the flags-as-code files (cli/flags-as-code/desired.ts) say the same.

const ALTERNATIVES = new Set(['anyOf', 'oneOf']);

const depth = (pointer: string) => (pointer === '' ? 0 : pointer.split('/').length - 1);

/** "string, number or boolean". */
const either = (words: readonly string[]) =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;

/**
 * The errors of a value that fits none of a schema's alternatives, reduced to those of the
 * alternative it came closest to: one wrong condition of a rule is one error at that condition,
 * not one per alternative of every field above it (`rules`: a list, or null). Where no
 * alternative got past the value's type, they are one error that names the types it may have.
 */
function closestAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  let kept = [...errors];
  // The outermost first: choosing its alternative drops the inner ones of the others.
  const wrappers = errors
    .filter((e) => ALTERNATIVES.has(e.keyword) && !(e.params as { passingSchemas?: unknown }).passingSchemas)
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const wrapper of wrappers) {
    if (!kept.includes(wrapper)) continue;
    const prefix = `${wrapper.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of kept) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0] as string;
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    if (branches.size === 0) continue;
    const all = [...branches.values()];
    const reach = (branch: readonly ErrorObject[]) => Math.max(...branch.map((e) => depth(e.instancePath)));
    const furthest = Math.max(...all.map(reach));
    const dropped = new Set(all.flat());
    // What stands for the alternatives: the errors of the one that got furthest, or one error of types.
    let standing: ErrorObject[] = [];
    if (furthest > depth(wrapper.instancePath)) {
      for (const error of all.find((branch) => reach(branch) === furthest) ?? []) dropped.delete(error);
    } else if (all.every((branch) => branch.length === 1 && branch[0]?.keyword === 'type')) {
      const types = all.map((branch) => String(((branch[0] as ErrorObject).params as { type: string }).type));
      standing = [
        { ...wrapper, keyword: 'type', params: { type: types }, message: `must be ${either(types)}` },
      ];
    } else {
      for (const error of all[0] ?? []) dropped.delete(error);
    }
    kept = kept.flatMap((error) => (error === wrapper ? standing : dropped.has(error) ? [] : [error]));
  }
  return kept;
}

/**
 * The message of a length or pattern error in words a person can act on beside the field (the
 * dashboard shows them there), in the API's style of words that follow the field's name; Ajv's
 * own ("must NOT have fewer than 1 characters") for the rest.
 */
function inWords(e: ErrorObject): string {
  const params = e.params as { limit?: number; pattern?: string };
  if (e.keyword === 'minLength')
    return params.limit === 1 ? 'is required' : `must be at least ${params.limit} characters`;
  if (e.keyword === 'maxLength') return `must be at most ${params.limit} characters`;
  if (e.keyword === 'pattern' && params.pattern === KEY_PATTERN) return KEY_RULE;
  return e.message ?? 'is invalid';
}

/** Turns a validator's errors into `{ path, message }`, JSON-pointer paths a person can follow, the noise left out. */
export function schemaErrors(errors: readonly ErrorObject[]): FieldError[] {
  return closestAlternatives(errors).map((e) => {
    if (e.keyword === 'additionalProperties') {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      return { path: `${e.instancePath}/${field}`, message: `unknown field "${field}"` };
    }
    if (e.keyword === 'required') {
      const field = (e.params as { missingProperty: string }).missingProperty;
      return { path: `${e.instancePath}/${field}`, message: 'is required' };
    }
    if (e.keyword === 'enum') {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return {
        path: e.instancePath,
        message: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
      };
    }
    return { path: e.instancePath || '/', message: inWords(e) };
  });
}
