// The engine's operator implementations as its interpreter calls them: with evaluated arguments.
import { InvalidArguments, isTruthy, NotANumber, own, precoerceNumber } from './coercion.ts';
import { splitPath } from './split-path.ts';

/** `var` with a computed key: `[key, default]`, `../` climbs to enclosing iterator scopes. */
export function varMethod(keyArgument: unknown, data: unknown, above: unknown): unknown {
  let key = keyArgument;
  let fallback: unknown;
  if (Array.isArray(key)) {
    fallback = key[1];
    key = key[0];
  }
  let context = data;
  let scopes = above as unknown[];
  let climbed = 0;
  while (typeof key === 'string' && key.startsWith('../') && climbed < scopes.length) {
    context = scopes[climbed++];
    key = key.substring(3);
    if (climbed === scopes.length && Array.isArray(context)) {
      climbed = 0;
      scopes = context;
      context = scopes[climbed++];
    }
  }
  const notFound = fallback === undefined ? null : fallback;
  if (key === undefined || key === '' || key === null) return typeof context === 'function' ? null : context;
  for (const part of splitPath(String(key))) {
    if (context === null || context === undefined) return notFound;
    context = own(context, part);
    if (context === undefined) return notFound;
  }
  return typeof context === 'function' ? null : context;
}

/** Keys of `checked` (dotted paths) absent from `data`. */
export function missingMethod(checked: unknown, data: unknown): unknown[] {
  const list = checked as ArrayLike<unknown>;
  if (!list.length) return [];
  const missing: unknown[] = [];
  for (let i = 0; i < list.length; i++) {
    let value = data;
    let found = true;
    for (const part of splitPath(String(list[i]))) {
      if (!value) {
        found = false;
        break;
      }
      value = own(value, part);
      if (value === undefined) {
        found = false;
        break;
      }
    }
    if (!found) missing.push(list[i]);
  }
  return missing;
}

export function missingSomeMethod(args: unknown, data: unknown): unknown[] {
  const [needCount, options] = args as unknown[];
  const missing = missingMethod(options, data);
  if ((options as unknown[]).length - missing.length >= (needCount as number)) return [];
  return missing;
}

const isObject = (value: unknown): boolean => Boolean(value) && typeof value === 'object';

export function plusMethod(data: unknown): number {
  if (!data) return 0;
  if (typeof data === 'string' || typeof data === 'number' || typeof data === 'boolean') {
    return precoerceNumber(+data) as number;
  }
  if (!Array.isArray(data)) throw new NotANumber();
  let result = 0;
  for (const item of data) {
    if (isObject(item)) throw new NotANumber();
    result += +(item as number);
  }
  if (Number.isNaN(result)) throw new NotANumber();
  return result;
}

export function minusMethod(data: unknown): unknown {
  if (!data) return 0;
  if (typeof data === 'string' || typeof data === 'number' || typeof data === 'boolean') {
    return precoerceNumber(-(data as number)) as number;
  }
  if (!Array.isArray(data)) throw new NotANumber();
  if (isObject(data[0])) throw new NotANumber();
  if (data.length === 0) throw new InvalidArguments();
  if (data.length === 1) return -(data[0] as number);
  let result = data[0] as number;
  for (let i = 1; i < data.length; i++) {
    if (isObject(data[i])) throw new NotANumber();
    result -= +(data[i] as number);
  }
  if (Number.isNaN(result)) throw new NotANumber();
  return result;
}

export function timesMethod(data: unknown): number {
  const list = data as unknown[];
  if (list.length === 0) return 1;
  let result = 1;
  for (const item of list) {
    if (isObject(item)) throw new NotANumber();
    result *= +(item as number);
  }
  if (Number.isNaN(result)) throw new NotANumber();
  return result;
}

export function divideMethod(data: unknown): number {
  const list = data as unknown[];
  if (isObject(list[0])) throw new NotANumber();
  if (list.length === 0) throw new InvalidArguments();
  if (list.length === 1) {
    if (!+(list[0] as number)) throw new NotANumber();
    return 1 / +(list[0] as number);
  }
  let result = +(list[0] as number);
  for (let i = 1; i < list.length; i++) {
    if (isObject(list[i]) || !list[i]) throw new NotANumber();
    result /= +(list[i] as number);
  }
  if (Number.isNaN(result) || result === Number.POSITIVE_INFINITY) throw new NotANumber();
  return result;
}

export function moduloMethod(data: unknown): number {
  const list = data as unknown[];
  if (isObject(list[0])) throw new NotANumber();
  if (list.length < 2) throw new InvalidArguments();
  let result = +(list[0] as number);
  for (let i = 1; i < list.length; i++) {
    if (isObject(list[i])) throw new NotANumber();
    result %= +(list[i] as number);
  }
  if (Number.isNaN(result)) throw new NotANumber();
  return result;
}

function extreme(data: unknown, pick: (a: number, b: number) => boolean): number {
  const list = data as unknown[];
  if (!list.length || typeof list[0] !== 'number') throw new InvalidArguments();
  let best = list[0];
  for (let i = 1; i < list.length; i++) {
    const item = list[i];
    if (typeof item !== 'number') throw new InvalidArguments();
    if (pick(item, best)) best = item;
  }
  return best;
}

export const maxMethod = (data: unknown): number => extreme(data, (a, b) => a > b);
export const minMethod = (data: unknown): number => extreme(data, (a, b) => a < b);

/** `in`: substring test on strings, membership on arrays; anything else has no `includes` and fails. */
export function inMethod(item: unknown, container: unknown): boolean {
  const haystack = container || [];
  if (typeof haystack === 'string') return haystack.includes(item as string);
  if (Array.isArray(haystack)) return haystack.includes(item);
  throw new TypeError('in: second argument has no includes()');
}

export function substrMethod(data: unknown): unknown {
  const [text, from, end] = data as unknown[];
  if (typeof text !== 'string') throw new TypeError('substr: first argument is not a string');
  if ((end as number) < 0) {
    const result = text.substr(from as number);
    return result.substr(0, result.length + (end as number));
  }
  return text.substr(from as number, end as number);
}

export function mergeMethod(data: unknown): unknown[] {
  if (!Array.isArray(data)) return [data];
  const result: unknown[] = [];
  for (const item of data) {
    if (Array.isArray(item)) for (const inner of item) result.push(inner);
    else result.push(item);
  }
  return result;
}

export const notMethod = (value: unknown): boolean => !isTruthy(Array.isArray(value) ? value[0] : value);

export function catMethod(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return (value as { toString(): string }).toString();
  let result = '';
  for (const item of value) {
    if (item === null || item === undefined) continue;
    result += item as string;
  }
  return result;
}
