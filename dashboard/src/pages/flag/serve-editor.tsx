import type { ApiError } from '../../api.ts';
import { Field, fieldId, InlineError, RadioField, sourceOf } from '../../kit/field.tsx';
import type { ServeDraft, VariantDraft } from './draft.ts';
import { RolloutEditor } from './rollout-editor.tsx';

/** The options of a variant picker: by draft id, so a renamed variant stays chosen. */
export const VariantOptions = ({ variants }: { variants: readonly VariantDraft[] }) => (
  <>
    {variants.map((v) => (
      <option key={v.id} value={v.id}>
        {v.key || '(a variant without a key)'}
      </option>
    ))}
  </>
);

/** Serve one variant, or split by percentage. */
const SERVE_KINDS = [
  ['variant', 'Serve a variant'],
  ['rollout', 'Percentage rollout'],
] as const;

export function ServeEditor({
  serve,
  variants,
  variantPath,
  rolloutPath,
  problem,
  onChange,
  legend,
  path,
}: {
  serve: ServeDraft;
  variants: readonly VariantDraft[];
  variantPath: string;
  rolloutPath: string;
  problem?: ApiError | undefined;
  onChange: (serve: ServeDraft) => void;
  legend: string;
  path: string;
}) {
  const name = `${fieldId(path)}-serve`;
  return (
    <fieldset className="serve">
      <legend className="visually-hidden">{legend}: what to serve</legend>
      <div className="radio-row">
        <RadioField of={sourceOf(serve, onChange, problem)} name="kind" group={name} choices={SERVE_KINDS} />
      </div>
      <InlineError problem={problem} path={path.endsWith('/serve') ? path : `${path}/serve`} />
      <Field
        label={serve.kind === 'variant' ? 'Variant' : 'Users without the bucket attribute get'}
        path={variantPath}
        problem={problem}
      >
        {(props) => (
          <select
            {...props}
            value={serve.variant}
            onChange={(e) => onChange({ ...serve, variant: e.target.value })}
          >
            <option value="">{serve.kind === 'variant' ? 'Choose a variant' : 'No value (null)'}</option>
            <VariantOptions variants={variants} />
          </select>
        )}
      </Field>
      {serve.kind === 'rollout' && (
        <RolloutEditor
          draft={serve.rollout}
          variants={variants}
          path={rolloutPath}
          problem={problem}
          onChange={(rollout) => onChange({ ...serve, rollout })}
        />
      )}
    </fieldset>
  );
}
