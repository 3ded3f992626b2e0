import { LIST_OPERATORS, type Operator, type Rule, UNARY_OPERATORS } from '../../../src/domain/segment.ts';

// Targeting rules in words, where they are read rather than edited: what decided an evaluation
// (playground, user view) and an environment's settings side by side. Pure, so it is unit-tested
// (rule-words.test.ts).

export const OPERATOR_LABELS: Readonly<Record<Operator, string>> = {
  equals: 'is',
  not_equals: 'is not',
  in: 'is one of',
  not_in: 'is none of',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  matches: 'matches regex',
  exists: 'is set',
  not_exists: 'is not set',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  semver_eq: 'version =',
  semver_gt: 'version >',
  semver_gte: 'version ≥',
  semver_lt: 'version <',
  semver_lte: 'version ≤',
  before: 'is before',
  after: 'is after',
};

/** One condition: "country is NL", "plan is one of pro, team", "in segment beta", "not (email ends with @example.com)". */
export function conditionWords(rule: Rule): string {
  if (rule.type === 'segment') return `${rule.negate ? 'not in' : 'in'} segment ${rule.segment}`;
  const { attribute, operator } = rule;
  const operand = UNARY_OPERATORS.has(operator)
    ? ''
    : ` ${LIST_OPERATORS.has(operator) ? (rule.values ?? []).join(', ') : String(rule.value ?? '')}`;
  const words = `${attribute} ${OPERATOR_LABELS[operator] ?? operator}${operand}`;
  return rule.negate ? `not (${words})` : words;
}

/** What a rule asks of a user, as stored (or as the user view answers it). */
export interface RuleAudience {
  readonly description?: string | undefined;
  readonly matchAll?: boolean | undefined;
  readonly segments: readonly string[];
  readonly conditions: readonly Rule[];
}

/** Who a rule serves: "everyone", or its segments and conditions joined by "and". */
export function audienceWords(rule: RuleAudience): string {
  if (rule.matchAll) return 'everyone';
  const parts = [
    ...rule.segments.map((segment) => `in segment ${segment}`),
    ...rule.conditions.map(conditionWords),
  ];
  return parts.length === 0 ? 'nobody (no segment or condition)' : parts.join(' and ');
}

/** "rule 2 (“Beta testers”): in segment beta and country is NL". */
export function ruleWords(number: number, rule: RuleAudience): string {
  const named = rule.description ? ` (“${rule.description}”)` : '';
  return `rule ${number}${named}: ${audienceWords(rule)}`;
}
