import type { ApiError } from '../../api.ts';
import { Field, InlineError, sourceOf, TextField } from '../../kit/field.tsx';
import { madeHundred, type RolloutDraft, sharesOf, type VariantDraft, weightsOf } from './draft.ts';

const BAR_COLOURS = ['#1f4fd6', '#c2410c', '#047857', '#7c3aed', '#b91c1c', '#0e7490', '#a16207'];

const percent = (share: number) => `${Number.isInteger(share) ? share : share.toFixed(1)} %`;

/**
 * A weight per variant of the flag, with the percentage each gives and the total: weights are
 * relative (1 and 3 are 25 % and 75 %), which the total and "Make it 100" make plain.
 */
const BUCKET_HINT = 'Users with the same value get the same variant. Default: targetingKey.';

export function RolloutEditor({
  draft,
  variants,
  onChange,
  path,
  problem,
}: {
  draft: RolloutDraft;
  variants: readonly VariantDraft[];
  onChange: (draft: RolloutDraft) => void;
  path: string;
  problem?: ApiError | undefined;
}) {
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
              style={{ width: `${shares[i] ?? 0}%`, background: BAR_COLOURS[i % BAR_COLOURS.length] }}
              title={`${v.key} ${percent(shares[i] ?? 0)}`}
            />
          ) : null,
        )}
      </div>
      <InlineError problem={problem} path={`${path}/weights`} />
      <div className="weights">
        {variants.map((v, i) => (
          <Field
            key={v.id}
            label={
              <>
                <span
                  className="swatch"
                  style={{ background: BAR_COLOURS[i % BAR_COLOURS.length] }}
                  aria-hidden="true"
                />
                Weight of {v.key || 'the unnamed variant'}
              </>
            }
            path={`${path}/weights/${i}/weight`}
            problem={problem}
            hint={<output className="share-of">{percent(shares[i] ?? 0)} of users</output>}
          >
            {(props) => (
              <input
                {...props}
                type="number"
                min="0"
                step="1"
                value={draft.weights[v.id] ?? '0'}
                onChange={(e) =>
                  onChange({ ...draft, weights: { ...draft.weights, [v.id]: e.target.value } })
                }
              />
            )}
          </Field>
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
