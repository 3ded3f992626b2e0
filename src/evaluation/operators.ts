import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import type { SemVer } from 'semver';
import type { FieldError } from '../domain/errors.ts';
import type { EvaluationContext } from '../domain/evaluation-result.ts';
import {
  type AttributeRule,
  LIST_OPERATORS,
  OPERATORS,
  type Operator,
  type Rule,
  UNARY_OPERATORS,
} from '../domain/segment.ts';
import { compileAttributePath } from './attribute-path.ts';
import { parseInstant } from './dates.ts';
import { parseVersion } from './semver.ts';
import { sharedCompiled } from './shared-compiled.ts';

/** A compiled condition on one user context. */
export type ContextPredicate = (context: EvaluationContext) => boolean;

/** Tests one attribute value (never undefined: missing attributes are settled before). */
type ValueTest = (value: unknown) => boolean;

const KNOWN_OPERATORS: ReadonlySet<string> = new Set(OPERATORS);
const NUMERIC_OPERATORS: ReadonlySet<Operator> = new Set(['gt', 'gte', 'lt', 'lte']);
const SEMVER_OPERATORS: ReadonlySet<Operator> = new Set([
  'semver_eq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
]);
const DATE_OPERATORS: ReadonlySet<Operator> = new Set(['before', 'after']);
/** Operators that hold when their positive form holds for no value of the attribute. */
const NEGATIVE_FORMS: ReadonlyMap<Operator, Operator> = new Map<Operator, Operator>([
  ['not_equals', 'equals'],
  ['not_in', 'in'],
  ['not_contains', 'contains'],
]);
// Decimal text only: Number() would also accept "0x10", " 5 " and "Infinity".
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const NEVER: ContextPredicate = () => false;

/** Seed-style text of a value: strings as they are, numbers and booleans by their JSON text, else undefined. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return undefined;
}

function isScalar(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/**
 * RE2, loaded when the first pattern is compiled (synchronously: compiling never waits): most
 * projects match no attribute by pattern, and loading it costs a node 2 MB (decision 2093).
 */
let re2: typeof RE2JS | undefined;
const loadedRe2 = (): typeof RE2JS =>
  (re2 ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS);

/** A pattern compiled once however many rules use it: RE2's programs are the largest part of a compiled rule. */
const compileRegex = sharedCompiled((pattern: string): RE2JS | string => {
  try {
    return loadedRe2().compile(pattern);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}, 5_000);

function semverTest(operator: Operator, expected: SemVer): ValueTest {
  const order = (value: unknown): number | undefined => {
    const version = parseVersion(value);
    return version === null ? undefined : version.compare(expected);
  };
  switch (operator) {
    case 'semver_eq':
      return (value) => order(value) === 0;
    case 'semver_gt':
      return (value) => (order(value) ?? 0) > 0;
    case 'semver_gte':
      return (value) => (order(value) ?? -1) >= 0;
    case 'semver_lt':
      return (value) => (order(value) ?? 0) < 0;
    default:
      return (value) => (order(value) ?? 1) <= 0;
  }
}

function numericTest(operator: Operator, expected: number): ValueTest {
  switch (operator) {
    case 'gt':
      return (value) => (numberOf(value) ?? Number.NaN) > expected;
    case 'gte':
      return (value) => (numberOf(value) ?? Number.NaN) >= expected;
    case 'lt':
      return (value) => (numberOf(value) ?? Number.NaN) < expected;
    default:
      return (value) => (numberOf(value) ?? Number.NaN) <= expected;
  }
}

/** The test of a positive operator on one value, or null when the rule's operand is unusable. */
function positiveTest(operator: Operator, rule: AttributeRule): ValueTest | null {
  if (operator === 'in') {
    if (!Array.isArray(rule.values) || !rule.values.every(isScalar)) return null;
    const allowed = new Set(rule.values.map((v) => textOf(v) as string));
    return (value) => {
      const text = textOf(value);
      return text !== undefined && allowed.has(text);
    };
  }
  if (NUMERIC_OPERATORS.has(operator)) {
    const expected = rule.value;
    return typeof expected === 'number' && Number.isFinite(expected) ? numericTest(operator, expected) : null;
  }
  if (SEMVER_OPERATORS.has(operator)) {
    const expected = parseVersion(rule.value);
    return expected === null ? null : semverTest(operator, expected);
  }
  if (DATE_OPERATORS.has(operator)) {
    const expected = parseInstant(rule.value);
    if (expected === undefined) return null;
    return operator === 'before'
      ? (value) => (parseInstant(value) ?? Number.NaN) < expected
      : (value) => (parseInstant(value) ?? Number.NaN) > expected;
  }
  const expected = textOf(rule.value);
  if (expected === undefined) return null;
  switch (operator) {
    case 'equals':
      return (value) => textOf(value) === expected;
    case 'contains':
      return (value) => textOf(value)?.includes(expected) ?? false;
    case 'starts_with':
      return (value) => textOf(value)?.startsWith(expected) ?? false;
    case 'ends_with':
      return (value) => textOf(value)?.endsWith(expected) ?? false;
    case 'matches': {
      const regex = compileRegex(expected);
      if (typeof regex === 'string') return null;
      return (value) => {
        const text = textOf(value);
        return text !== undefined && regex.test(text);
      };
    }
    default:
      return null;
  }
}

/** A list attribute matches a positive operator when one of its elements does (as in LaunchDarkly). */
function anyValue(test: ValueTest): ValueTest {
  return (value) => {
    if (!Array.isArray(value)) return test(value);
    for (let i = 0; i < value.length; i++) {
      if (test(value[i])) return true;
    }
    return false;
  };
}

/**
 * Compiles an attribute rule into a predicate; everything is parsed here, none at evaluation.
 * A missing (or null) attribute matches only `not_exists`, before `negate` inverts the result.
 * Never throws: a rule without a usable operator and operand (see validateAttributeRule) never matches.
 * Rules with the same JSON text share one predicate (conditions repeat across flags and environments).
 */
export const compileAttributeRule: (rule: AttributeRule) => ContextPredicate = sharedCompiled(
  predicateOf,
  10_000,
  (rule) => JSON.stringify(rule),
);

function predicateOf(rule: AttributeRule): ContextPredicate {
  if (typeof rule.attribute !== 'string' || !KNOWN_OPERATORS.has(rule.operator)) return NEVER;
  const read = compileAttributePath(rule.attribute);
  const negate = rule.negate === true;
  if (rule.operator === 'exists' || rule.operator === 'not_exists') {
    const wanted = (rule.operator === 'exists') !== negate;
    return (context) => (read(context) !== undefined) === wanted;
  }
  const positive = NEGATIVE_FORMS.get(rule.operator);
  const compiled = positiveTest(positive ?? rule.operator, rule);
  if (compiled === null) return NEVER;
  const test = anyValue(compiled);
  // Missing never matches, whatever the operator: `not_equals` on a missing attribute is false too.
  if (positive === undefined) {
    return negate
      ? (context) => {
          const value = read(context);
          return value === undefined || !test(value);
        }
      : (context) => {
          const value = read(context);
          return value !== undefined && test(value);
        };
  }
  return negate
    ? (context) => {
        const value = read(context);
        return value === undefined || test(value);
      }
    : (context) => {
        const value = read(context);
        return value !== undefined && !test(value);
      };
}

function describe(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

function validateOperand(rule: AttributeRule, path: string): FieldError[] {
  const operator = rule.operator;
  const hasValue = rule.value !== undefined;
  const hasValues = rule.values !== undefined;
  if (UNARY_OPERATORS.has(operator)) {
    return hasValue || hasValues ? [{ path, message: `${operator} takes neither value nor values` }] : [];
  }
  if (LIST_OPERATORS.has(operator)) {
    if (hasValue) return [{ path: `${path}/value`, message: `${operator} takes values (a list), not value` }];
    if (!Array.isArray(rule.values))
      return [{ path: `${path}/values`, message: `${operator} needs values: a list` }];
    return rule.values.flatMap((v, i) =>
      isScalar(v) ? [] : [{ path: `${path}/values/${i}`, message: 'must be a string, number or boolean' }],
    );
  }
  if (hasValues) return [{ path: `${path}/values`, message: `${operator} takes value, not values` }];
  const value = rule.value;
  const at = `${path}/value`;
  if (!hasValue) return [{ path: at, message: `${operator} needs a value` }];
  if (NUMERIC_OPERATORS.has(operator)) {
    return typeof value === 'number' && Number.isFinite(value)
      ? []
      : [{ path: at, message: `${operator} compares numbers: value must be a number` }];
  }
  if (SEMVER_OPERATORS.has(operator)) {
    return parseVersion(value) ? [] : [{ path: at, message: `not a semantic version: ${describe(value)}` }];
  }
  if (DATE_OPERATORS.has(operator)) {
    return parseInstant(value) === undefined
      ? [{ path: at, message: `not an RFC 3339 date-time or epoch seconds: ${describe(value)}` }]
      : [];
  }
  if (!isScalar(value)) return [{ path: at, message: 'must be a string, number or boolean' }];
  if (operator === 'matches') {
    const regex = compileRegex(String(value));
    return typeof regex === 'string'
      ? [{ path: at, message: `regular expression does not compile: ${regex}` }]
      : [];
  }
  return [];
}

/**
 * Problems that make an attribute rule unusable (no attribute, unknown operator, missing or
 * ill-typed operand, a regex that RE2 refuses, a version or date that does not parse), with paths
 * relative to the rule (`/value`); empty when the rule is valid.
 */
export function validateAttributeRule(rule: AttributeRule): FieldError[] {
  if (typeof rule.attribute !== 'string' || rule.attribute.length === 0) {
    return [{ path: '/attribute', message: 'must name an attribute' }];
  }
  if (!KNOWN_OPERATORS.has(rule.operator)) {
    return [{ path: '/operator', message: `unknown operator: ${describe(rule.operator)}` }];
  }
  if (rule.negate !== undefined && typeof rule.negate !== 'boolean') {
    return [{ path: '/negate', message: 'must be a boolean' }];
  }
  return validateOperand(rule, '');
}

/**
 * validateAttributeRule for either kind of rule, with paths below `path`. Whether a `segment`
 * rule's segment exists, or closes a cycle (see findSegmentCycle), is for the caller to check.
 */
export function validateRule(rule: Rule, path = ''): FieldError[] {
  if (typeof rule !== 'object' || rule === null) return [{ path, message: 'must be a rule object' }];
  if (rule.type === 'segment') {
    if (typeof rule.segment !== 'string' || rule.segment.length === 0) {
      return [{ path: `${path}/segment`, message: 'must name a segment' }];
    }
    return rule.negate === undefined || typeof rule.negate === 'boolean'
      ? []
      : [{ path: `${path}/negate`, message: 'must be a boolean' }];
  }
  if (rule.type !== 'attribute')
    return [{ path: `${path}/type`, message: 'must be "attribute" or "segment"' }];
  return validateAttributeRule(rule).map((error) => ({
    path: `${path}${error.path}`,
    message: error.message,
  }));
}
