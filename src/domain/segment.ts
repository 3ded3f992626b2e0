import type { ProjectResource } from './keyed-resource.ts';
/** Every operator of docs/product.md §2. */
export const OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'matches',
  'exists',
  'not_exists',
  'gt',
  'gte',
  'lt',
  'lte',
  'semver_eq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'before',
  'after',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators that take `values` (a list) instead of `value`. */
export const LIST_OPERATORS: ReadonlySet<Operator> = new Set(['in', 'not_in']);
/** Operators that take no operand. */
export const UNARY_OPERATORS: ReadonlySet<Operator> = new Set(['exists', 'not_exists']);

export interface AttributeRule {
  readonly type: 'attribute';
  /** User attribute; a dotted name reaches into nested objects when no attribute has the dotted name itself. */
  readonly attribute: string;
  readonly operator: Operator;
  readonly value?: string | number | boolean;
  readonly values?: readonly (string | number | boolean)[];
  readonly negate?: boolean;
}

export interface SegmentRule {
  readonly type: 'segment';
  /** Key of another segment of the same project. */
  readonly segment: string;
  readonly negate?: boolean;
}

export type Rule = AttributeRule | SegmentRule;

export type SegmentMatch = 'all' | 'any';

export interface Segment extends ProjectResource {
  /** `all`: every rule must hold; `any`: one is enough. */
  readonly match: SegmentMatch;
  readonly rules: readonly Rule[];
  /** targetingKey values always in the segment (loses to `excluded`). */
  readonly included: readonly string[];
  /** targetingKey values never in the segment. */
  readonly excluded: readonly string[];
}

/** Keys of the segments that rules refer to. */
export const segmentsNamedBy = (rules: readonly Rule[]): string[] =>
  rules.flatMap((rule) =>
    rule.type === 'segment' && typeof rule.segment === 'string' ? [rule.segment] : [],
  );
