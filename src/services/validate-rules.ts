import type { FieldError } from '../domain/errors.ts';
import { type AttributeRule, LIST_OPERATORS, type Rule, UNARY_OPERATORS } from '../domain/segment.ts';
import { validateAttributeRule } from '../evaluation/operators.ts';

/**
 * Checks the rules of a segment or a targeting rule: each type's own fields, operands an
 * operator can use (so evaluation never meets a bad rule), and references to known segments.
 */
export function validateRules(
  rules: readonly Rule[],
  segmentKeys: ReadonlySet<string>,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  rules.forEach((rule, index) => {
    const at = `${path}/${index}`;
    const fields = rule as unknown as Record<string, unknown>;
    if (rule.type === 'segment') {
      for (const field of ['attribute', 'operator', 'value', 'values']) {
        if (fields[field] !== undefined)
          errors.push({ path: `${at}/${field}`, message: 'is not used by a segment rule' });
      }
      if (typeof rule.segment !== 'string') errors.push({ path: `${at}/segment`, message: 'is required' });
      else if (!segmentKeys.has(rule.segment)) {
        errors.push({ path: `${at}/segment`, message: `no segment "${rule.segment}" in this project` });
      }
      return;
    }
    if (fields.segment !== undefined)
      errors.push({ path: `${at}/segment`, message: 'is not used by an attribute rule' });
    if (typeof rule.attribute !== 'string') errors.push({ path: `${at}/attribute`, message: 'is required' });
    if (typeof rule.operator !== 'string') {
      errors.push({ path: `${at}/operator`, message: 'is required' });
      return;
    }
    errors.push(...operandErrors(rule, at));
  });
  return errors;
}

function operandErrors(rule: AttributeRule, at: string): FieldError[] {
  if (UNARY_OPERATORS.has(rule.operator)) {
    if (rule.value !== undefined || rule.values !== undefined) {
      return [{ path: `${at}/value`, message: `${rule.operator} takes no value` }];
    }
    return [];
  }
  if (LIST_OPERATORS.has(rule.operator)) {
    if (rule.values === undefined)
      return [{ path: `${at}/values`, message: `${rule.operator} needs "values", a list` }];
    if (rule.value !== undefined)
      return [{ path: `${at}/value`, message: `${rule.operator} takes "values", not "value"` }];
  } else {
    if (rule.value === undefined) return [{ path: `${at}/value`, message: `${rule.operator} needs "value"` }];
    if (rule.values !== undefined)
      return [{ path: `${at}/values`, message: `${rule.operator} takes "value", not "values"` }];
  }
  return validateAttributeRule(rule).map((e) => ({ path: `${at}${e.path}`, message: e.message }));
}
