// JavaScript coercions of flagd's JSON-logic engine (json-logic-engine 5, used by flagd-core), reproduced
// literally: variants served by flagd depend on them, including their odd corners.

/** The engine signals arithmetic on non-numbers by throwing; flagd turns that into an evaluation error. */
export class NotANumber extends Error {
  constructor() {
    super('NaN');
    this.name = 'NotANumber';
  }
}

export class InvalidArguments extends Error {
  constructor() {
    super('Invalid Arguments');
    this.name = 'InvalidArguments';
  }
}

/** Property read with JavaScript semantics (`value?.[key]`): primitives expose their wrapper's properties. */
export function get(value: unknown, key: string | number): unknown {
  return value === null || value === undefined ? undefined : (value as Record<string | number, unknown>)[key];
}

/**
 * One step of a variable path (`var`, `missing`): an own property only, so that no path reaches
 * into prototypes (`constructor.name`, `__proto__.x`, `toString`). Strings and lists still give
 * their `length` and elements, which are their own. flagd's engine reads inherited properties
 * too; decision 0101 records the difference.
 */
export function own(value: unknown, key: string | number): unknown {
  if (value === null || value === undefined) return undefined;
  return Object.hasOwn(value as object, key) ? (value as Record<string | number, unknown>)[key] : undefined;
}

/** JsonLogic truthiness: empty arrays and empty plain objects are false. */
export function isTruthy(value: unknown): boolean {
  if (!value) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') {
    // The engine reads constructor.name without a guard; an object whose "constructor" is null throws, as in flagd.
    if ((value as { constructor: { name: unknown } }).constructor.name === 'Object') {
      return Object.keys(value).length > 0;
    }
  }
  return true;
}

/** Refuses NaN and objects before a numeric coercion; passes falsy values through. */
export function precoerceNumber(item: unknown): unknown {
  if (Number.isNaN(item)) throw new NotANumber();
  if (!item) return item;
  if (typeof item === 'object') throw new NotANumber();
  return item;
}

/** `+value` with the engine's refusals. */
export const toNumber = (value: unknown): number => +(precoerceNumber(value) as number);

const isStringOrNull = (value: unknown): boolean => typeof value === 'string' || value === null;

/** The right operand of a compiled comparison, checked against `prev` (the engine's compareCheck). */
export function compareCheck(item: unknown, prev: unknown, strict: boolean): unknown {
  if (strict || (isStringOrNull(item) && isStringOrNull(prev))) return item;
  if (Number.isNaN(toNumber(item)) && prev !== null) throw new NotANumber();
  if (Number.isNaN(toNumber(prev))) throw new NotANumber();
  if (prev === null && !item) return null;
  if (item === null && !prev) return 0;
  return item;
}

export type ComparisonOperator = '<' | '<=' | '>' | '>=' | '==' | '===' | '!=' | '!==';

/** Raw JavaScript comparisons: the engine applies them to whatever the operands are. */
export const COMPARISONS: Readonly<Record<ComparisonOperator, (a: unknown, b: unknown) => boolean>> = {
  '<': (a, b) => (a as number) < (b as number),
  '<=': (a, b) => (a as number) <= (b as number),
  '>': (a, b) => (a as number) > (b as number),
  '>=': (a, b) => (a as number) >= (b as number),
  // biome-ignore lint/suspicious/noDoubleEquals: JsonLogic "==" is JavaScript loose equality
  '==': (a, b) => a == b,
  '===': (a, b) => a === b,
  // biome-ignore lint/suspicious/noDoubleEquals: JsonLogic "!=" is JavaScript loose inequality
  '!=': (a, b) => a != b,
  '!==': (a, b) => a !== b,
};

export const isStrict = (operator: ComparisonOperator): boolean => operator.length === 3;

/** The interpreter's comparison of two evaluated operands (numeric unless both are strings or null). */
export function compareValues(operator: ComparisonOperator, a: unknown, b: unknown): boolean {
  const compare = COMPARISONS[operator];
  if (isStrict(operator) || (isStringOrNull(a) && isStringOrNull(b))) return compare(a, b);
  if (Number.isNaN(toNumber(a))) throw new NotANumber();
  if (Number.isNaN(toNumber(b)) && a !== null) throw new NotANumber();
  return compare(+(a as number), +(b as number));
}

/** reduce's accumulator may not nest objects (the engine's default maxDepth of 0). */
export function assertAllowedDepth(item: unknown): unknown {
  if (!item || typeof item !== 'object') return item;
  const values = Array.isArray(item) ? item : Object.values(item);
  for (const value of values) {
    if (typeof value === 'object' && value) throw new InvalidArguments();
  }
  return item;
}

export function assertSize(value: unknown, size: number): unknown[] {
  if (!Array.isArray(value) || value.length < size) throw new InvalidArguments();
  return value;
}

export const coerceArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
