import { type Choice, Options } from './field.tsx';

/** A list filter's select: `any` first (the value '', no filter), then the choices. */
export function FilterSelect({
  label,
  any,
  value,
  choices,
  onChange,
  disabled,
}: {
  label: string;
  any: string;
  value: string;
  choices: readonly Choice[];
  onChange: (value: string) => void;
  disabled?: boolean;
}) {
  return (
    <label className="field inline">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
        <option value="">{any}</option>
        <Options choices={choices} />
      </select>
    </label>
  );
}

/** A list filter that is on or off: the URL holds `true`, or nothing. */
export function FilterCheckbox({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (value: 'true' | null) => void;
}) {
  return (
    <label className="checkbox">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked ? 'true' : null)} />{' '}
      {label}
    </label>
  );
}
