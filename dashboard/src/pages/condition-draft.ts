import { LIST_OPERATORS, type Operator, type Rule, UNARY_OPERATORS } from '../../../src/domain/segment.ts';

/** A condition as edited: operands as the text of their inputs. */
export type ConditionDraft =
  | { type: 'attribute'; attribute: string; operator: Operator; text: string; negate: boolean }
  | { type: 'segment'; segment: string; negate: boolean };

export const NUMERIC_OPERATORS: ReadonlySet<Operator> = new Set(['gt', 'gte', 'lt', 'lte']);
export const DATE_OPERATORS: ReadonlySet<Operator> = new Set(['before', 'after']);

/** Text typed as a list: one entry per line or comma, blanks dropped. */
export const listOf = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((v) => v.trim())
    .filter(Boolean);

/** An RFC 3339 time (or epoch seconds) as a datetime-local input's value, in the browser's zone. */
function toLocalInput(value: unknown): string {
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(String(value));
  if (Number.isNaN(date.getTime())) return String(value ?? '');
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

export function conditionToDraft(rule: Rule): ConditionDraft {
  if (rule.type === 'segment')
    return { type: 'segment', segment: rule.segment, negate: rule.negate ?? false };
  const { operator } = rule;
  const text = LIST_OPERATORS.has(operator)
    ? (rule.values ?? []).join('\n')
    : DATE_OPERATORS.has(operator)
      ? toLocalInput(rule.value)
      : String(rule.value ?? '');
  return { type: 'attribute', attribute: rule.attribute, operator, text, negate: rule.negate ?? false };
}

/** The draft as the API's rule; operands that do not parse go as typed, so the API says which field is wrong. */
export function conditionFromDraft(draft: ConditionDraft): Rule {
  const negate = draft.negate ? { negate: true } : {};
  if (draft.type === 'segment') return { type: 'segment', segment: draft.segment, ...negate };
  const { attribute, operator, text } = draft;
  const base = { type: 'attribute' as const, attribute: attribute.trim(), operator, ...negate };
  if (UNARY_OPERATORS.has(operator)) return base;
  if (LIST_OPERATORS.has(operator)) return { ...base, values: listOf(text) };
  if (NUMERIC_OPERATORS.has(operator)) {
    const number = Number(text);
    return { ...base, value: text.trim() !== '' && Number.isFinite(number) ? number : text };
  }
  if (DATE_OPERATORS.has(operator)) {
    const date = new Date(text);
    return { ...base, value: Number.isNaN(date.getTime()) ? text : date.toISOString() };
  }
  return { ...base, value: text };
}

export const newCondition = (): ConditionDraft => ({
  type: 'attribute',
  attribute: '',
  operator: 'equals',
  text: '',
  negate: false,
});
