import type { FieldError } from '../../domain/errors.ts';
import type { TargetingRule } from '../../domain/flag.ts';
import type { Rule } from '../../domain/segment.ts';
import { validateRule } from '../../evaluation/operators.ts';

/** Fields of the other rule type: the wire schema is one shape for both, so say which do not belong. */
const FOREIGN_FIELDS: Readonly<Record<Rule['type'], readonly string[]>> = {
  segment: ['attribute', 'operator', 'value', 'values'],
  attribute: ['segment'],
};

/**
 * Checks the rules of a segment or a targeting rule: operands the operator can use (so
 * evaluation never meets a bad rule), no fields of the other rule type, and references to
 * segments that exist in the project.
 */
export function validateRules(
  rules: readonly Rule[],
  segmentKeys: ReadonlySet<string>,
  path: string,
): FieldError[] {
  return rules.flatMap((rule, index) => {
    const at = `${path}/${index}`;
    const fields = rule as unknown as Record<string, unknown>;
    const errors = (FOREIGN_FIELDS[rule.type] ?? [])
      .filter((field) => fields[field] !== undefined)
      .map((field) => ({ path: `${at}/${field}`, message: `is not used by a ${rule.type} rule` }));
    errors.push(...validateRule(rule, at), ...emptyOperands(rule, at));
    if (rule.type === 'segment' && typeof rule.segment === 'string' && !segmentKeys.has(rule.segment)) {
      errors.push({ path: `${at}/segment`, message: `no segment "${rule.segment}" in this project` });
    }
    return errors;
  });
}

/**
 * An empty string as an operand is a form left blank, not a wish: `contains ""` matches every
 * value, `equals ""` only an attribute set to nothing. Refused for every operator (decision
 * 1750); an empty attribute is still matched on purpose by `matches "^$"`.
 */
function emptyOperands(rule: Rule, at: string): FieldError[] {
  if (rule.type !== 'attribute') return [];
  if (rule.value === '')
    return [
      {
        path: `${at}/value`,
        message: `is empty: enter a value (an empty attribute is matched by matches "^$")`,
      },
    ];
  if (!Array.isArray(rule.values)) return [];
  if (rule.values.length === 0)
    return [{ path: `${at}/values`, message: `is empty: ${rule.operator} needs at least one value` }];
  return rule.values.flatMap((value, i) =>
    value === '' ? [{ path: `${at}/values/${i}`, message: 'is empty: enter a value or remove it' }] : [],
  );
}

/**
 * Who a targeting rule is for: its segments and conditions, or everyone on purpose with
 * `matchAll: true`. A rule with neither is refused, so an empty rule never serves everyone by
 * accident (decision 0603); `matchAll` with segments or conditions would be contradictory.
 */
export function validateRuleAudience(rule: TargetingRule, path: string): FieldError[] {
  const named = rule.segments.length > 0 || rule.conditions.length > 0;
  if (rule.matchAll === true && named)
    return [
      { path: `${path}/matchAll`, message: 'serves everyone, so the rule takes no segments or conditions' },
    ];
  if (rule.matchAll !== true && !named)
    return [
      {
        path: `${path}/segments`,
        message: 'name a segment or a condition, or send "matchAll": true to serve everyone',
      },
    ];
  return [];
}
