import type { ReactNode } from 'react';
import { type ApiError, api, enc, type FlagSummary } from '../api.ts';
import { Field } from '../kit/field.tsx';
import { SearchPicker } from '../kit/search-picker.tsx';
import { useProject } from '../project.ts';

/** How many flags a search offers: a screenful to choose from; more letters find the others. */
const OFFERED = 20;

const offeredText = (flags: readonly FlagSummary[]) =>
  flags.length === 0
    ? 'No flag matches.'
    : flags.length === 1
      ? '1 flag matches.'
      : flags.length < OFFERED
        ? `${flags.length} flags match.`
        : `The first ${OFFERED} flags that match: type more of a key or name to find others.`;

/**
 * A field that chooses one of the project's flags, however many it has: typing searches their
 * keys and names through the flag list's `?q=`, a few at a time (docs/decisions/1842). `value` is
 * the chosen flag's key; `excluding` names flags not to offer, and `archived: false` leaves out
 * archived flags, in the search itself so that they take no place among the few.
 */
export function FlagPicker({
  label = 'Flag',
  path,
  problem,
  value,
  onChoose,
  excluding = [],
  archived = true,
  className,
  disabled,
}: {
  label?: ReactNode;
  /** Where the API's errors for the field point; also its id. */
  path: string;
  problem?: ApiError | undefined;
  value: string;
  onChoose: (flag: FlagSummary) => void;
  excluding?: readonly string[];
  archived?: boolean;
  className?: string;
  disabled?: boolean;
}) {
  const { project } = useProject();
  const search = async (text: string) => {
    const query = new URLSearchParams({ limit: String(OFFERED + excluding.length) });
    if (text) query.set('q', text);
    if (!archived) query.set('archived', 'false');
    const flags = await api<FlagSummary[]>('GET', `/projects/${enc(project.id)}/flags?${query}`);
    return flags.filter((f) => !excluding.includes(f.key)).slice(0, OFFERED);
  };
  return (
    <Field label={label} path={path} problem={problem} className={className}>
      {(props) => (
        <SearchPicker
          {...props}
          value={value}
          search={search}
          textOf={(f) => f.key}
          show={(f) => `${f.name} (${f.key})`}
          describe={offeredText}
          listLabel="Matching flags"
          onChoose={onChoose}
          disabled={disabled}
        />
      )}
    </Field>
  );
}
