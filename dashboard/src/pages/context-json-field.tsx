import { Field, type TextValueProps } from '../kit/field.tsx';

/** A user's context typed as JSON (the playground, the user view), with the API's error beside it. */
export function ContextJsonField({ value, onChange, ...field }: Omit<TextValueProps, 'hint'>) {
  return (
    <Field {...field} hint="targetingKey identifies the user; any other attribute can be targeted.">
      {(props) => (
        <textarea
          {...props}
          rows={8}
          className="mono"
          spellCheck={false}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}
