import { useState } from 'react';
import type { Rollout } from '../../../src/domain/flag.ts';
import {
  LIST_OPERATORS,
  OPERATORS,
  type Operator,
  type Rule,
  UNARY_OPERATORS,
} from '../../../src/domain/segment.ts';
import type { ApiError } from '../api.ts';
import { Field, fieldId, InlineError } from '../ui.tsx';

/** A condition as edited: operands as the text of their inputs. */
export type ConditionDraft =
  | { type: 'attribute'; attribute: string; operator: Operator; text: string; negate: boolean }
  | { type: 'segment'; segment: string; negate: boolean };

const NUMERIC = new Set<Operator>(['gt', 'gte', 'lt', 'lte']);
const DATES = new Set<Operator>(['before', 'after']);

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
    : DATES.has(operator)
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
  if (LIST_OPERATORS.has(operator)) {
    const values = text
      .split(/[\n,]/)
      .map((v) => v.trim())
      .filter(Boolean);
    return { ...base, values };
  }
  if (NUMERIC.has(operator)) {
    const number = Number(text);
    return { ...base, value: text.trim() !== '' && Number.isFinite(number) ? number : text };
  }
  if (DATES.has(operator)) {
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

/** One condition: attribute, operator and an input that suits the operator. */
function ConditionRow({
  condition,
  path,
  segments,
  problem,
  onChange,
  onRemove,
  position,
}: {
  condition: ConditionDraft;
  path: string;
  segments: readonly string[];
  problem?: ApiError | undefined;
  onChange: (c: ConditionDraft) => void;
  onRemove: () => void;
  position: number;
}) {
  const label = `condition ${position}`;
  if (condition.type === 'segment') {
    return (
      <fieldset className="condition">
        <legend className="visually-hidden">Condition {position}</legend>
        <Field label="User is in segment" path={`${path}/segment`} problem={problem}>
          {(props) => (
            <select
              {...props}
              value={condition.segment}
              onChange={(e) => onChange({ ...condition, segment: e.target.value })}
            >
              <option value="">Choose a segment</option>
              {segments.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <NegateBox condition={condition} onChange={onChange} label={label} />
        <button type="button" className="btn subtle" onClick={onRemove} aria-label={`Remove ${label}`}>
          Remove
        </button>
      </fieldset>
    );
  }
  const { operator } = condition;
  return (
    <fieldset className="condition">
      <legend className="visually-hidden">Condition {position}</legend>
      <Field label="Attribute" path={`${path}/attribute`} problem={problem}>
        {(props) => (
          <input
            {...props}
            value={condition.attribute}
            placeholder="e.g. country"
            spellCheck={false}
            onChange={(e) => onChange({ ...condition, attribute: e.target.value })}
          />
        )}
      </Field>
      <Field label="Operator" path={`${path}/operator`} problem={problem}>
        {(props) => (
          <select
            {...props}
            value={operator}
            onChange={(e) => onChange({ ...condition, operator: e.target.value as Operator })}
          >
            {OPERATORS.map((o) => (
              <option key={o} value={o}>
                {OPERATOR_LABELS[o]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {!UNARY_OPERATORS.has(operator) && (
        <Field
          label={LIST_OPERATORS.has(operator) ? 'Values' : 'Value'}
          path={`${path}/${LIST_OPERATORS.has(operator) ? 'values' : 'value'}`}
          problem={problem}
          className="grow"
          hint={
            LIST_OPERATORS.has(operator)
              ? 'One per line, or separated by commas.'
              : operator.startsWith('semver')
                ? 'A version, e.g. 2.1.0.'
                : operator === 'matches'
                  ? 'A regular expression (RE2 syntax).'
                  : undefined
          }
        >
          {(props) => {
            const set = (text: string) => onChange({ ...condition, text });
            if (LIST_OPERATORS.has(operator))
              return (
                <textarea {...props} rows={2} value={condition.text} onChange={(e) => set(e.target.value)} />
              );
            if (NUMERIC.has(operator))
              return (
                <input
                  {...props}
                  type="number"
                  step="any"
                  value={condition.text}
                  onChange={(e) => set(e.target.value)}
                />
              );
            if (DATES.has(operator))
              return (
                <input
                  {...props}
                  type="datetime-local"
                  step="1"
                  value={condition.text}
                  onChange={(e) => set(e.target.value)}
                />
              );
            return (
              <input
                {...props}
                value={condition.text}
                spellCheck={false}
                onChange={(e) => set(e.target.value)}
              />
            );
          }}
        </Field>
      )}
      <NegateBox condition={condition} onChange={onChange} label={label} />
      <button type="button" className="btn subtle" onClick={onRemove} aria-label={`Remove ${label}`}>
        Remove
      </button>
    </fieldset>
  );
}

function NegateBox({
  condition,
  onChange,
  label,
}: {
  condition: ConditionDraft;
  onChange: (c: ConditionDraft) => void;
  label: string;
}) {
  return (
    <label className="checkbox negate">
      <input
        type="checkbox"
        checked={condition.negate}
        onChange={(e) => onChange({ ...condition, negate: e.target.checked })}
        aria-label={`Negate ${label}`}
      />{' '}
      Not
    </label>
  );
}

/** A list of conditions; segment references only where `segments` are offered. */
export function ConditionsEditor({
  conditions,
  onChange,
  path,
  segments,
  problem,
  allowSegments,
  addLabel = 'Add condition',
}: {
  conditions: readonly ConditionDraft[];
  onChange: (conditions: ConditionDraft[]) => void;
  path: string;
  segments: readonly string[];
  problem?: ApiError | undefined;
  allowSegments: boolean;
  addLabel?: string;
}) {
  return (
    <div className="conditions">
      <InlineError problem={problem} path={path} />
      {conditions.map((c, i) => (
        <ConditionRow
          // biome-ignore lint/suspicious/noArrayIndexKey: conditions have no identity of their own
          key={i}
          position={i + 1}
          condition={c}
          path={`${path}/${i}`}
          segments={segments}
          problem={problem}
          onChange={(next) => onChange(conditions.map((x, j) => (j === i ? next : x)))}
          onRemove={() => onChange(conditions.filter((_, j) => j !== i))}
        />
      ))}
      <div className="inline-actions">
        <button type="button" className="btn" onClick={() => onChange([...conditions, newCondition()])}>
          {addLabel}
        </button>
        {allowSegments && (
          <button
            type="button"
            className="btn"
            onClick={() => onChange([...conditions, { type: 'segment', segment: '', negate: false }])}
          >
            Add segment condition
          </button>
        )}
      </div>
    </div>
  );
}

/** Choose segments: the chosen ones as removable chips, the others in a list to add from. */
export function SegmentPicker({
  chosen,
  available,
  onChange,
  path,
  problem,
  label,
}: {
  chosen: readonly string[];
  available: readonly string[];
  onChange: (segments: string[]) => void;
  path: string;
  problem?: ApiError | undefined;
  label: string;
}) {
  const rest = available.filter((s) => !chosen.includes(s));
  // Chosen, then added with a button: a select that acted on change would add a segment for
  // every arrow key pressed on it.
  const [pick, setPick] = useState('');
  const add = () => {
    if (pick === '') return;
    onChange([...chosen, pick]);
    setPick('');
  };
  return (
    <div className="segment-picker">
      <div className="picker-row">
        <Field label={label} path={path} problem={problem}>
          {(props) => (
            <select
              {...props}
              value={pick}
              onChange={(e) => setPick(e.target.value)}
              disabled={rest.length === 0}
            >
              <option value="">
                {available.length === 0
                  ? 'No segments in this project'
                  : rest.length === 0
                    ? 'Every segment is chosen'
                    : 'Choose a segment'}
              </option>
              {rest.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <button type="button" className="btn" onClick={add} disabled={pick === ''}>
          Add segment
        </button>
      </div>
      {chosen.length > 0 && (
        <ul className="chips" aria-label="Chosen segments">
          {chosen.map((s, i) => (
            <li key={s} className="chip" id={fieldId(`${path}/${i}`)} tabIndex={-1}>
              {s}
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove segment ${s}`}
                onClick={() => onChange(chosen.filter((x) => x !== s))}
              >
                ×
              </button>
              <InlineError problem={problem} path={`${path}/${i}`} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A rollout as edited: weights as text. */
export interface RolloutDraft {
  readonly bucketBy: string;
  readonly weights: readonly { readonly variant: string; readonly weight: string }[];
}

export const rolloutToDraft = (rollout: Rollout | undefined, variants: readonly string[]): RolloutDraft => ({
  bucketBy: rollout?.bucketBy ?? '',
  weights:
    rollout?.weights.map((w) => ({ variant: w.variant, weight: String(w.weight) })) ??
    variants.map((variant, i) => ({ variant, weight: i === 0 ? '50' : i === 1 ? '50' : '0' })),
});

export function rolloutFromDraft(draft: RolloutDraft, seed?: string): Rollout {
  return {
    ...(draft.bucketBy.trim() ? { bucketBy: draft.bucketBy.trim() } : {}),
    ...(seed ? { seed } : {}),
    weights: draft.weights.map((w) => ({
      variant: w.variant,
      weight:
        Number.isInteger(Number(w.weight)) && w.weight.trim() !== ''
          ? Number(w.weight)
          : (w.weight as unknown as number),
    })),
  };
}

const BAR_COLOURS = ['#1f4fd6', '#c2410c', '#047857', '#7c3aed', '#b91c1c', '#0e7490', '#a16207'];

/** Rollout weights with a bar that shows each variant's share as it is typed. */
export function RolloutEditor({
  draft,
  onChange,
  path,
  problem,
}: {
  draft: RolloutDraft;
  onChange: (draft: RolloutDraft) => void;
  path: string;
  problem?: ApiError | undefined;
}) {
  const numbers = draft.weights.map((w) => Math.max(0, Number(w.weight) || 0));
  const total = numbers.reduce((a, b) => a + b, 0);
  const share = (n: number) => (total === 0 ? 0 : (n / total) * 100);
  return (
    <div className="rollout">
      <div className="rollout-bar" aria-hidden="true">
        {draft.weights.map((w, i) =>
          (numbers[i] ?? 0) > 0 ? (
            <span
              key={w.variant}
              className="share"
              style={{ width: `${share(numbers[i] ?? 0)}%`, background: BAR_COLOURS[i % BAR_COLOURS.length] }}
              title={`${w.variant} ${share(numbers[i] ?? 0).toFixed(1)}%`}
            />
          ) : null,
        )}
      </div>
      <InlineError problem={problem} path={`${path}/weights`} />
      <div className="weights">
        {draft.weights.map((w, i) => (
          <Field
            key={w.variant}
            label={
              <>
                <span
                  className="swatch"
                  style={{ background: BAR_COLOURS[i % BAR_COLOURS.length] }}
                  aria-hidden="true"
                />
                {w.variant} <output className="muted">{share(numbers[i] ?? 0).toFixed(1)}%</output>
              </>
            }
            path={`${path}/weights/${i}/weight`}
            problem={problem}
          >
            {(props) => (
              <input
                {...props}
                type="number"
                min="0"
                step="1"
                value={w.weight}
                onChange={(e) =>
                  onChange({
                    ...draft,
                    weights: draft.weights.map((x, j) => (j === i ? { ...x, weight: e.target.value } : x)),
                  })
                }
              />
            )}
          </Field>
        ))}
      </div>
      <Field
        label="Bucket by attribute"
        path={`${path}/bucketBy`}
        problem={problem}
        hint="Users with the same value get the same variant. Default: targetingKey."
      >
        {(props) => (
          <input
            {...props}
            value={draft.bucketBy}
            placeholder="targetingKey"
            spellCheck={false}
            onChange={(e) => onChange({ ...draft, bucketBy: e.target.value })}
          />
        )}
      </Field>
    </div>
  );
}
