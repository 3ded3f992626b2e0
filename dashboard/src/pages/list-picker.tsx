import type { ReactNode } from 'react';
import type { ApiError } from '../api.ts';
import { Field } from '../kit/field.tsx';
import { SearchPicker } from '../kit/search-picker.tsx';

/** How many items a search offers: a screenful to choose from; more letters find the others. */
export const OFFERED = 20;

/** What a search found, in words: "3 flags match."; `searched`: what more of to type for others. */
const offeredText = (noun: string, searched: string) => (items: readonly unknown[]) =>
  items.length === 0
    ? `No ${noun} matches.`
    : items.length === 1
      ? `1 ${noun} matches.`
      : items.length < OFFERED
        ? `${items.length} ${noun}s match.`
        : `The first ${OFFERED} ${noun}s that match: type more of ${searched} to find others.`;

/**
 * A labelled field that chooses one item of an API list too long to show (flags, segments,
 * accounts) by searching it: `search` finds the first OFFERED items for the text typed
 * (docs/decisions/1842, 1844, 1846).
 */
export function ListPicker<T>({
  label,
  path,
  problem,
  className,
  noun,
  searched = 'a key or name',
  ...picker
}: {
  label: ReactNode;
  /** Where the API's errors for the field point; also its id. */
  path: string;
  problem?: ApiError | undefined;
  className?: string | undefined;
  /** One item, in words: "flag". */
  noun: string;
  /** What a search looks in, in words: "a key or name". */
  searched?: string;
  value: string;
  search: (text: string) => Promise<readonly T[]>;
  textOf: (item: T) => string;
  show: (item: T) => ReactNode;
  onChoose: (item: T) => void;
  disabled?: boolean | undefined;
}) {
  return (
    <Field label={label} path={path} problem={problem} className={className}>
      {(props) => (
        <SearchPicker
          {...props}
          {...picker}
          describe={offeredText(noun, searched)}
          listLabel={`Matching ${noun}s`}
        />
      )}
    </Field>
  );
}
