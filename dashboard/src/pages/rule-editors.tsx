import { LIST_OPERATORS, OPERATORS, type Operator, UNARY_OPERATORS } from '../../../src/domain/segment.ts';
import type { ApiError } from '../api.ts';
import { Field, fieldId, InlineError, SelectField, sourceOf, TextField } from '../kit/field.tsx';
import { type ConditionDraft, DATE_OPERATORS, NUMERIC_OPERATORS, newCondition } from './condition-draft.ts';
import { OPERATOR_LABELS } from './rule-words.ts';
import { SegmentField } from './segment-field.tsx';

/** The value's input for an operator: a number, a date and time, or text that is not spell-checked. */
const valueInputOf = (operator: Operator) =>
  NUMERIC_OPERATORS.has(operator)
    ? { type: 'number', step: 'any' }
    : DATE_OPERATORS.has(operator)
      ? { type: 'datetime-local', step: '1' }
      : { spellCheck: false };

const OPERATOR_CHOICES = OPERATORS.map((o) => [o, OPERATOR_LABELS[o]] as const);

/** One condition: attribute, operator and an input that suits the operator. */
function ConditionRow({
  condition,
  path,
  notSegment,
  problem,
  onChange,
  onRemove,
  position,
  noun,
}: {
  noun: string;
  condition: ConditionDraft;
  path: string;
  notSegment: string | undefined;
  problem?: ApiError | undefined;
  onChange: (c: ConditionDraft) => void;
  onRemove: () => void;
  position: number;
}) {
  const label = `${noun} ${position}`;
  const legend = `${noun[0]?.toUpperCase()}${noun.slice(1)} ${position}`;
  if (condition.type === 'segment') {
    return (
      <fieldset className="condition">
        <legend className="visually-hidden">{legend}</legend>
        <SegmentField
          label="User is in segment"
          path={`${path}/segment`}
          problem={problem}
          value={condition.segment}
          excluding={notSegment === undefined ? [] : [notSegment]}
          onChoose={(segment) => onChange({ ...condition, segment: segment.key })}
        />
        <NegateBox condition={condition} onChange={onChange} label={label} />
        <RemoveButton label={label} onRemove={onRemove} />
      </fieldset>
    );
  }
  const { operator } = condition;
  const fields = sourceOf(condition, onChange, problem, path);
  return (
    <fieldset className="condition">
      <legend className="visually-hidden">{legend}</legend>
      <TextField of={fields} name="attribute" label="Attribute" placeholder="e.g. country" code />
      <SelectField of={fields} name="operator" label="Operator" choices={OPERATOR_CHOICES} />
      {!UNARY_OPERATORS.has(operator) && (
        <ValueField condition={condition} path={path} problem={problem} onChange={onChange} />
      )}
      <NegateBox condition={condition} onChange={onChange} label={label} />
      <RemoveButton label={label} onRemove={onRemove} />
    </fieldset>
  );
}

function RemoveButton({ label, onRemove }: { label: string; onRemove: () => void }) {
  return (
    <button type="button" className="btn subtle" onClick={onRemove} aria-label={`Remove ${label}`}>
      Remove
    </button>
  );
}

/** What a value's field tells about the operator's values. */
const valueHint = (operator: Operator) =>
  LIST_OPERATORS.has(operator)
    ? 'One per line, or separated by commas.'
    : operator.startsWith('semver')
      ? 'A version, e.g. 2.1.0.'
      : operator === 'matches'
        ? 'A regular expression (RE2 syntax).'
        : undefined;

/** The value (or values, one per line) an attribute is compared with, in an input that suits the operator. */
function ValueField({
  condition,
  path,
  problem,
  onChange,
}: {
  condition: ConditionDraft & { type: 'attribute' };
  path: string;
  problem: ApiError | undefined;
  onChange: (c: ConditionDraft) => void;
}) {
  const { operator } = condition;
  const list = LIST_OPERATORS.has(operator);
  return (
    <Field
      label={list ? 'Values' : 'Value'}
      path={`${path}/${list ? 'values' : 'value'}`}
      problem={problem}
      className="grow"
      hint={valueHint(operator)}
    >
      {(props) => {
        const control = {
          ...props,
          value: condition.text,
          onChange: (e: { target: { value: string } }) => onChange({ ...condition, text: e.target.value }),
        };
        if (list) return <textarea {...control} rows={2} />;
        return <input {...control} {...valueInputOf(operator)} />;
      }}
    </Field>
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

/** A list of conditions; segment references only where `allowSegments`. */
export function ConditionsEditor({
  conditions,
  onChange,
  path,
  notSegment,
  problem,
  allowSegments,
  noun = 'condition',
}: {
  /** What one entry is called: the segment page calls its conditions rules. */
  noun?: 'condition' | 'rule';
  conditions: readonly ConditionDraft[];
  onChange: (conditions: ConditionDraft[]) => void;
  path: string;
  /** The segment whose rules these are: not offered, as a segment cannot be in itself. */
  notSegment?: string | undefined;
  problem?: ApiError | undefined;
  allowSegments: boolean;
}) {
  return (
    <div className="conditions">
      <InlineError problem={problem} path={path} />
      {conditions.map((c, i) => (
        <ConditionRow
          // biome-ignore lint/suspicious/noArrayIndexKey: conditions have no identity of their own
          key={i}
          position={i + 1}
          noun={noun}
          condition={c}
          path={`${path}/${i}`}
          notSegment={notSegment}
          problem={problem}
          onChange={(next) => onChange(conditions.map((x, j) => (j === i ? next : x)))}
          onRemove={() => onChange(conditions.filter((_, j) => j !== i))}
        />
      ))}
      <div className="inline-actions">
        <button type="button" className="btn" onClick={() => onChange([...conditions, newCondition()])}>
          Add {noun}
        </button>
        {allowSegments && (
          <button
            type="button"
            className="btn"
            onClick={() => onChange([...conditions, { type: 'segment', segment: '', negate: false }])}
          >
            Add segment {noun}
          </button>
        )}
      </div>
    </div>
  );
}

/**
 * Choose segments: the chosen ones as removable chips, another found by searching (however many
 * the project has, docs/decisions/1844) and then added.
 */
export function SegmentPicker({
  chosen,
  pick,
  onPick,
  onAdd,
  onRemove,
  ...field
}: {
  chosen: readonly string[];
  /** Chosen in the search but not yet added; the draft keeps it, and saving adds it. */
  pick: string;
  onPick: (segment: string) => void;
  /** Adds the picked segment (and clears the pick, in the same change). */
  onAdd: (segment: string) => void;
  onRemove: (segment: string) => void;
  path: string;
  problem?: ApiError | undefined;
  label: string;
}) {
  // Chosen, then added with a button, as the select before it was: a choice is a step of its own,
  // easy to change before it is added. A choice left unadded is added on save (decision 0603).
  const add = () => {
    if (pick !== '') onAdd(pick);
  };
  return (
    <div className="segment-picker">
      <div className="picker-row">
        <SegmentField
          {...field}
          value={pick}
          excluding={chosen}
          onChoose={(segment) => onPick(segment.key)}
        />
        <button type="button" className="btn" onClick={add} disabled={pick === ''}>
          Add segment
        </button>
      </div>
      {pick !== '' && (
        <p className="hint">
          Saving adds <strong>{pick}</strong> too, or press “Add segment” now.
        </p>
      )}
      {chosen.length > 0 && (
        <ul className="chips" aria-label="Chosen segments">
          {chosen.map((s, i) => (
            <li key={s} className="chip" id={fieldId(`${field.path}/${i}`)} tabIndex={-1}>
              {s}
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove segment ${s}`}
                onClick={() => onRemove(s)}
              >
                ×
              </button>
              <InlineError problem={field.problem} path={`${field.path}/${i}`} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
