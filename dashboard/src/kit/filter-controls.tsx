import { type InputHTMLAttributes, useId } from 'react';
import type { QueryChanges } from '../url-query.ts';
import { type Choice, Options } from './field.tsx';
import { SettlingInput } from './settling-input.tsx';

/**
 * What a list's filters read and write: the list's query as its URL holds it, one parameter a
 * filter (docs/decisions/1803), and how to change it. Each control below is bound to one
 * parameter by `name`, as the form kit's fields are bound to one value of their FieldSource.
 */
export interface QueryFilters<Q> {
  readonly query: Q;
  /** `replace`: a refinement of the same filter (more letters of a search), not a new view for Back. */
  readonly onChange: (changes: QueryChanges, options?: { replace?: boolean }) => void;
}

type KeysOf<Q, V> = { [K in keyof Q]: Q[K] extends V ? K : never }[keyof Q] & string;

/**
 * A list filter's select: `any` first (the value '', no filter), then the choices. `clears`: the
 * parameters that mean nothing once this one changes (an action belongs to a resource type).
 */
export function FilterSelect<Q>({
  of,
  name,
  label,
  any,
  choices,
  clears = [],
  disabled,
}: {
  of: QueryFilters<Q>;
  name: KeysOf<Q, string>;
  label: string;
  any: string;
  choices: readonly Choice[];
  clears?: readonly string[];
  disabled?: boolean;
}) {
  const cleared = Object.fromEntries(clears.map((parameter) => [parameter, null]));
  return (
    <label className="field inline">
      <span>{label}</span>
      <select
        value={of.query[name] as string}
        onChange={(e) => of.onChange({ [name]: e.target.value, ...cleared })}
        disabled={disabled}
      >
        <option value="">{any}</option>
        <Options choices={choices} />
      </select>
    </label>
  );
}

/** A list filter that is on or off: the URL holds `true`, or nothing. */
export function FilterCheckbox<Q>({
  of,
  name,
  label,
}: {
  of: QueryFilters<Q>;
  name: KeysOf<Q, boolean>;
  label: string;
}) {
  return (
    <label className="checkbox">
      <input
        type="checkbox"
        checked={of.query[name] as boolean}
        onChange={(e) => of.onChange({ [name]: e.target.checked ? 'true' : null })}
      />{' '}
      {label}
    </label>
  );
}

/**
 * A list filter typed as text, counted once typing pauses (SettlingInput). The first text is a new
 * view for Back; more letters of it, or fewer, replace that view rather than adding one each.
 */
export function FilterText<Q>({
  of,
  name,
  label,
  ...input
}: {
  of: QueryFilters<Q>;
  name: KeysOf<Q, string>;
  label: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'name' | 'value' | 'onChange'>) {
  const id = useId();
  const value = of.query[name] as string;
  return (
    <label className="field inline" htmlFor={id}>
      <span>{label}</span>
      <SettlingInput
        {...input}
        id={id}
        value={value}
        onSettle={(text) => of.onChange({ [name]: text }, { replace: value !== '' && text !== '' })}
      />
    </label>
  );
}

/** A list's search, its page's one filter: `?q=` over the fields `placeholder` names. */
export function ListSearch({
  of,
  what,
  placeholder,
}: {
  of: QueryFilters<{ readonly q: string }>;
  /** The list, in words: "segments". */
  what: string;
  placeholder: string;
}) {
  return (
    <search className="filters" aria-label={`Filter ${what}`}>
      <FilterText of={of} name="q" label="Search" type="search" placeholder={placeholder} />
    </search>
  );
}
