import type { FlagType } from '../../../../src/domain/flag.ts';
import type { ApiError } from '../../api.ts';
import { Field, InlineError } from '../../kit/field.tsx';
import { newVariantDraft, type VariantDraft } from './draft.ts';

/**
 * The variants of a flag: a key and a value of the flag's type each. Renaming a key renames it
 * wherever the draft refers to it, since references hold the variant's draft id.
 */
export function VariantsEditor({
  variants,
  onChange,
  ...shown
}: {
  type: FlagType;
  variants: readonly VariantDraft[];
  onChange: (variants: VariantDraft[]) => void;
  problem?: ApiError | undefined;
  readOnly?: boolean;
}) {
  const { type, problem, readOnly = false } = shown;
  const fixed = type === 'boolean' || readOnly;
  const set = (index: number, change: Partial<VariantDraft>) =>
    onChange(variants.map((v, i) => (i === index ? { ...v, ...change } : v)));
  return (
    <fieldset className="variants">
      <legend>Variants</legend>
      <InlineError problem={problem} path="/variants" />
      {variants.map((variant, index) => (
        <div className="row variant" key={variant.id}>
          <VariantFields
            {...shown}
            variant={variant}
            index={index}
            onChange={(change) => set(index, change)}
          />
          {!fixed && (
            <button
              type="button"
              className="btn subtle"
              aria-label={`Remove variant ${variant.key || index + 1}`}
              disabled={variants.length <= 1}
              onClick={() => onChange(variants.filter((_, i) => i !== index))}
            >
              Remove
            </button>
          )}
        </div>
      ))}
      {!fixed && (
        <button type="button" className="btn" onClick={() => onChange([...variants, newVariantDraft(type)])}>
          Add variant
        </button>
      )}
    </fieldset>
  );
}

/** One variant's key, value (of the flag's type) and name; a boolean flag's keys and values are fixed. */
function VariantFields({
  type,
  variant,
  index,
  readOnly = false,
  problem,
  onChange,
}: {
  type: FlagType;
  variant: VariantDraft;
  index: number;
  readOnly?: boolean;
  problem?: ApiError | undefined;
  onChange: (change: Partial<VariantDraft>) => void;
}) {
  const fixed = type === 'boolean' || readOnly;
  return (
    <>
      <Field label="Key" path={`/variants/${index}/key`} problem={problem}>
        {(props) => (
          <input
            {...props}
            value={variant.key}
            readOnly={fixed}
            spellCheck={false}
            onChange={(e) => onChange({ key: e.target.value })}
          />
        )}
      </Field>
      <Field
        label={`Value (${type === 'object' ? 'JSON object' : type})`}
        path={`/variants/${index}/value`}
        problem={problem}
        className="grow"
      >
        {(props) =>
          type === 'object' ? (
            <textarea
              {...props}
              rows={3}
              value={variant.value}
              readOnly={readOnly}
              spellCheck={false}
              onChange={(e) => onChange({ value: e.target.value })}
            />
          ) : (
            <input
              {...props}
              value={variant.value}
              readOnly={fixed}
              inputMode={type === 'number' ? 'decimal' : undefined}
              onChange={(e) => onChange({ value: e.target.value })}
            />
          )
        }
      </Field>
      <Field label="Name (optional)" path={`/variants/${index}/name`} problem={problem}>
        {(props) => (
          <input
            {...props}
            value={variant.name ?? ''}
            readOnly={readOnly}
            onChange={(e) => onChange({ name: e.target.value })}
          />
        )}
      </Field>
    </>
  );
}
