import type { ApiError } from '../../api.ts';
import { Field, InlineError, sourceOf, TextField } from '../../kit/field.tsx';
import { madeHundred, type RolloutDraft, sharesOf, type VariantDraft, weightsOf } from './draft.ts';

const BAR_COLOURS = ['#1f4fd6', '#c2410c', '#047857', '#7c3aed', '#b91c1c', '#0e7490', '#a16207'];

const percent = (share: number) => `${Number.isInteger(share) ? share : share.toFixed(1)} %`;

const BUCKET_HINT = 'Users with the same value get the same variant. Default: targetingKey.';

/** What the rollout editor edits: the draft of the variants' weights and where the API's errors for it point. */
interface RolloutProps {
  draft: RolloutDraft;
  variants: readonly VariantDraft[];
  onChange: (draft: RolloutDraft) => void;
  path: string;
  problem?: ApiError | undefined;
}

/**
 * A weight per variant of the flag, with the percentage each gives and the total: weights are
 * relative (1 and 3 are 25 % and 75 %), which the total and "Make it 100" make plain.
 */
export function RolloutEditor(rollout: RolloutProps) {
  const { draft, variants, onChange, path, problem } = rollout;
  const numbers = weightsOf(draft, variants);
  const shares = sharesOf(numbers);
  const total = numbers.reduce((a, b) => a + b, 0);
  return (
    <div className="rollout">
      <div className="rollout-bar" aria-hidden="true">
        {variants.map((v, i) =>
          (numbers[i] ?? 0) > 0 ? (
            <span
              key={v.id}
              className="share"
              style={{ width: `${shares[i] ?? 0}%`, background: colourOf(i) }}
              title={`${v.key} ${percent(shares[i] ?? 0)}`}
            />
          ) : null,
        )}
      </div>
      <InlineError problem={problem} path={`${path}/weights`} />
      <div className="weights">
        {variants.map((v, i) => (
          <WeightField key={v.id} variant={v} index={i} share={shares[i] ?? 0} of={rollout} />
        ))}
      </div>
      <div className="rollout-total">
        <output className={total === 100 ? '' : 'strong'} aria-live="polite">
          Total weight {total}
          {total !== 100 && total > 0 && `: each variant gets its weight ÷ ${total}`}
        </output>
        {total !== 100 && (
          <button type="button" className="btn subtle" onClick={() => onChange(madeHundred(draft, variants))}>
            Make it 100
          </button>
        )}
      </div>
      <TextField
        of={sourceOf(draft, onChange, problem, path)}
        name="bucketBy"
        label="Bucket by attribute"
        placeholder="targetingKey"
        code
        hint={BUCKET_HINT}
      />
    </div>
  );
}

/** A variant's colour in the bar, beside its weight too. */
const colourOf = (index: number) => BAR_COLOURS[index % BAR_COLOURS.length];

/** One variant's weight, its colour beside the label and the share of users it gives under it. */
function WeightField({
  variant,
  index,
  share,
  of: { draft, onChange, path, problem },
}: {
  variant: VariantDraft;
  index: number;
  share: number;
  of: RolloutProps;
}) {
  return (
    <Field
      label={
        <>
          <span className="swatch" style={{ background: colourOf(index) }} aria-hidden="true" />
          Weight of {variant.key || 'the unnamed variant'}
        </>
      }
      path={`${path}/weights/${index}/weight`}
      problem={problem}
      hint={<output className="share-of">{percent(share)} of users</output>}
    >
      {(props) => (
        <input
          {...props}
          type="number"
          min="0"
          step="1"
          value={draft.weights[variant.id] ?? '0'}
          onChange={(e) =>
            onChange({ ...draft, weights: { ...draft.weights, [variant.id]: e.target.value } })
          }
        />
      )}
    </Field>
  );
}
