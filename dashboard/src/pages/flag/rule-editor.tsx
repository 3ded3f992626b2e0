import type { ApiError } from '../../api.ts';
import { fieldId, RadioField, sourceOf, TextField } from '../../kit/field.tsx';
import { ConditionsEditor, SegmentPicker } from '../rule-editors.tsx';
import type { RuleDraft, VariantDraft } from './draft.ts';
import { ServeEditor } from './serve-editor.tsx';

/**
 * One targeting rule: who it is for, then what it serves. "Everyone" is a choice of its own, so
 * a rule left empty is refused rather than serving everyone by accident (decision 0603).
 */
const AUDIENCES = [
  [false, 'Users in segments or with conditions'],
  [true, 'Everyone'],
] as const;

export function RuleEditor({
  rule,
  index,
  count,
  path,
  variants,
  problem,
  onChange,
  onMove,
  onRemove,
}: {
  rule: RuleDraft;
  index: number;
  count: number;
  path: string;
  variants: readonly VariantDraft[];
  problem?: ApiError | undefined;
  onChange: (rule: RuleDraft) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const title = `Rule ${index + 1}`;
  const audience = `${fieldId(path)}-audience`;
  const fields = sourceOf(rule, onChange, problem, path);
  return (
    <li className="rule" aria-label={title}>
      <div className="rule-head">
        <h4>{title}</h4>
        <RuleMoves title={title} index={index} count={count} onMove={onMove} onRemove={onRemove} />
      </div>
      <TextField of={fields} name="description" label="Description" />
      <fieldset className="radio-row audience">
        <legend>{title} is for</legend>
        <RadioField of={fields} name="everyone" group={audience} choices={AUDIENCES} />
      </fieldset>
      {rule.everyone ? (
        <p className="notice small">
          Every user who reaches this rule gets what it serves
          {index < count - 1 ? '; the rules below it are never reached.' : '.'}
        </p>
      ) : (
        <RuleAudience rule={rule} path={path} problem={problem} onChange={onChange} />
      )}
      <ServeEditor
        serve={rule.serve}
        variants={variants}
        path={`${path}/serve`}
        variantPath={`${path}/serve/variant`}
        rolloutPath={`${path}/serve/rollout`}
        problem={problem}
        legend={title}
        onChange={(serve) => onChange({ ...rule, serve })}
      />
    </li>
  );
}

/** Moving the rule up or down the list (the first that matches serves), or removing it. */
function RuleMoves({
  title,
  index,
  count,
  onMove,
  onRemove,
}: {
  title: string;
  index: number;
  count: number;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  return (
    <div className="inline-actions">
      <button type="button" className="btn subtle" disabled={index === 0} onClick={() => onMove(index - 1)}>
        Move up<span className="visually-hidden"> {title}</span>
      </button>
      <button
        type="button"
        className="btn subtle"
        disabled={index === count - 1}
        onClick={() => onMove(index + 1)}
      >
        Move down<span className="visually-hidden"> {title}</span>
      </button>
      <button type="button" className="btn subtle danger-text" onClick={onRemove}>
        Remove<span className="visually-hidden"> {title}</span>
      </button>
    </div>
  );
}

/** Who a rule that is not for everyone is for: users in every chosen segment, for whom every condition holds. */
function RuleAudience({
  rule,
  path,
  problem,
  onChange,
}: {
  rule: RuleDraft;
  path: string;
  problem: ApiError | undefined;
  onChange: (rule: RuleDraft) => void;
}) {
  return (
    <>
      <SegmentPicker
        label="If the user is in every one of these segments"
        chosen={rule.segments}
        pick={rule.pick}
        path={`${path}/segments`}
        problem={problem}
        onPick={(pick) => onChange({ ...rule, pick })}
        onAdd={(segment) => onChange({ ...rule, segments: [...rule.segments, segment], pick: '' })}
        onRemove={(segment) => onChange({ ...rule, segments: rule.segments.filter((s) => s !== segment) })}
      />
      <p className="muted small">…and every condition holds:</p>
      <ConditionsEditor
        conditions={rule.conditions}
        path={`${path}/conditions`}
        problem={problem}
        allowSegments={false}
        onChange={(conditions) => onChange({ ...rule, conditions })}
      />
    </>
  );
}
