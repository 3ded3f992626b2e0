import type { FlagType, JsonValue, Variant } from '../../../src/domain/flag.ts';
import type { ApiError } from '../api.ts';
import { Field, InlineError } from '../ui.tsx';

/** A variant as edited: its value as the text in the input. */
export interface VariantDraft {
  readonly key: string;
  readonly value: string;
  readonly name?: string;
}

export const draftsFromVariants = (variants: readonly Variant[]): VariantDraft[] =>
  variants.map((v) => ({
    key: v.key,
    value:
      typeof v.value === 'string'
        ? v.value
        : JSON.stringify(v.value, null, v.value && typeof v.value === 'object' ? 2 : undefined),
    ...(v.name ? { name: v.name } : {}),
  }));

/** Text → a value of the flag's type; text that is not one goes as it is, so the API names the field. */
export function parseValue(type: FlagType, text: string): JsonValue {
  if (type === 'string') return text;
  try {
    const value = JSON.parse(text) as JsonValue;
    return type === 'number' && typeof value !== 'number' ? text : value;
  } catch {
    return text;
  }
}

export const variantsFromDrafts = (type: FlagType, drafts: readonly VariantDraft[]): Variant[] =>
  drafts.map((d) => ({ key: d.key, value: parseValue(type, d.value), ...(d.name ? { name: d.name } : {}) }));

/** The variants of a flag: a key and a value of the flag's type each. */
export function VariantsEditor({
  type,
  variants,
  onChange,
  problem,
  readOnly = false,
}: {
  type: FlagType;
  variants: readonly VariantDraft[];
  onChange: (variants: VariantDraft[]) => void;
  problem?: ApiError | undefined;
  readOnly?: boolean;
}) {
  const fixed = type === 'boolean' || readOnly;
  const set = (index: number, change: Partial<VariantDraft>) =>
    onChange(variants.map((v, i) => (i === index ? { ...v, ...change } : v)));
  return (
    <fieldset className="variants">
      <legend>Variants</legend>
      <InlineError problem={problem} path="/variants" />
      {variants.map((variant, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: variants are edited in place; keys are what is edited
        <div className="row variant" key={index}>
          <Field label="Key" path={`/variants/${index}/key`} problem={problem}>
            {(props) => (
              <input
                {...props}
                value={variant.key}
                readOnly={fixed}
                spellCheck={false}
                onChange={(e) => set(index, { key: e.target.value })}
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
                  onChange={(e) => set(index, { value: e.target.value })}
                />
              ) : (
                <input
                  {...props}
                  value={variant.value}
                  readOnly={fixed}
                  inputMode={type === 'number' ? 'decimal' : undefined}
                  onChange={(e) => set(index, { value: e.target.value })}
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
                onChange={(e) => set(index, { name: e.target.value })}
              />
            )}
          </Field>
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
        <button
          type="button"
          className="btn"
          onClick={() => onChange([...variants, { key: '', value: type === 'object' ? '{}' : '' }])}
        >
          Add variant
        </button>
      )}
    </fieldset>
  );
}
