import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useEffect,
  useRef,
} from 'react';
import { DESCRIPTION_MAX, KEY_RULE, NAME_MAX } from '../../../src/domain/keys.ts';
import type { ApiError } from '../api.ts';

/** The limits of the fields every resource shares, shown before submitting (the API's, from one place). */
export const NAME_HINT = `At most ${NAME_MAX} characters.`;
export const DESCRIPTION_HINT = `Optional; at most ${DESCRIPTION_MAX} characters.`;

/** The id of the control for a JSON pointer of the API's errors: `/rules/0/value` → `f-rules-0-value`. */
export const fieldId = (path: string) => `f${path.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/**
 * The API's words for a field follow its name ("name: is required"); beside the field they stand
 * alone: "Required", "Must be at most 200 characters".
 */
export const besideField = (message: string): string => {
  const words = message.replace(/^is /, '');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The message the API gave for exactly this field, if any, worded to stand beside it. */
export const errorAt = (problem: ApiError | undefined, path: string): string | undefined => {
  const message = problem?.errors.find((e) => e.path === path)?.message;
  return message === undefined ? undefined : besideField(message);
};

export interface ControlProps {
  readonly id: string;
  readonly 'aria-invalid'?: true;
  readonly 'aria-describedby'?: string;
}

/** A labelled control with its hint and, beside it, the API's error for `path`. */
export function Field({
  label,
  path,
  problem,
  hint,
  children,
  className,
}: {
  label: ReactNode;
  path: string;
  problem?: ApiError | undefined;
  hint?: ReactNode;
  className?: string;
  children: (props: ControlProps) => ReactNode;
}) {
  const id = fieldId(path);
  const error = errorAt(problem, path);
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(error ? { 'aria-invalid': true as const } : {}),
        ...(described ? { 'aria-describedby': described } : {}),
      })}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A Field bound to one text value: its label and hint, where the API's errors for it point, the value. */
export interface TextValueProps {
  readonly label: ReactNode;
  readonly path: string;
  readonly problem?: ApiError | undefined;
  readonly hint?: ReactNode;
  readonly value: string;
  readonly onChange: (value: string) => void;
}

/** A part of a form whose value the page holds: the value, how to change it, the API's problem with the form. */
export interface FormPartProps<T> {
  readonly value: T;
  readonly onChange: (value: T) => void;
  readonly problem: ApiError | undefined;
}

/** Text taken as typed (keys, attribute names and values): no spelling checks, no autofill. */
export function VerbatimField({ value, onChange, ...field }: TextValueProps) {
  return (
    <Field {...field}>
      {(props) => (
        <input
          {...props}
          value={value}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/** An error shown beside something that is not a form control (a list, a group). */
export function InlineError({ problem, path }: { problem?: ApiError | undefined; path: string }) {
  const error = errorAt(problem, path);
  return error ? (
    <p className="error" id={`${fieldId(path)}-error`}>
      {error}
    </p>
  ) : null;
}

/**
 * What went wrong, at the top of a form: the problem's detail and every field error, each a
 * link to its field (the error is also shown beside the field). Takes focus when it appears.
 */
export function ErrorSummary({
  problem,
  describe = describePath,
}: {
  problem: ApiError | undefined;
  describe?: (path: string) => string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (problem) ref.current?.focus();
  }, [problem]);
  if (!problem) return null;
  return (
    <div className="error-summary" role="alert" tabIndex={-1} ref={ref}>
      <p>
        <strong>{problem.message}</strong>
      </p>
      {problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              <a
                href={`#${fieldId(e.path)}`}
                onClick={(event) => {
                  const target = document.getElementById(fieldId(e.path));
                  if (!target) return;
                  event.preventDefault();
                  target.focus();
                }}
              >
                {describe(e.path)}
              </a>
              : {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** `/environments/production/rules/0/conditions/1/value` → `production › rule 1 › condition 2 › value`. */
export function describePath(path: string): string {
  const parts = path
    .replace(/^[a-z]+:/, '')
    .split('/')
    .filter(Boolean);
  const words: string[] = [];
  const singular: Record<string, string> = {
    rules: 'rule',
    conditions: 'condition',
    variants: 'variant',
    targets: 'target',
    weights: 'weight',
    segments: 'segment',
    values: 'value',
    environments: 'environment',
  };
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    const next = parts[i + 1];
    if (part === 'environments' && next !== undefined && !/^\d+$/.test(next)) {
      words.push(next);
      i++;
    } else if (singular[part] && next !== undefined && /^\d+$/.test(next)) {
      words.push(`${singular[part]} ${Number(next) + 1}`);
      i++;
    } else words.push(part);
  }
  return words.join(' › ') || 'request';
}

/**
 * For forms that open because the person asked (a "New …" button): their first field takes
 * focus, so typing can start at once. Attach the returned ref to the form.
 */
export function useFocusFirstField<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea')?.focus();
  }, []);
  return ref;
}

/**
 * What the one-line fields below read and write: a form's values, how to change one, and the API's
 * problem with them. `at` is the JSON pointer the values stand at (e.g. `/rules/0`), so each field
 * finds its error at `${at}/${name}`.
 */
export interface FieldSource<T> {
  readonly values: T;
  readonly set: <K extends keyof T>(name: K, value: T[K]) => void;
  readonly problem: ApiError | undefined;
  readonly at?: string;
}

/** A FieldSource over a draft that is changed whole (`onChange({ ...draft, name })`). */
export function sourceOf<T>(
  values: T,
  onChange: (next: T) => void,
  problem: ApiError | undefined,
  at = '',
): FieldSource<T> {
  return { values, set: (name, value) => onChange({ ...values, [name]: value }), problem, at };
}

type TextKeys<T> = { [K in keyof T]: T[K] extends string ? K : never }[keyof T];

type TextAttributes = Omit<
  InputHTMLAttributes<HTMLInputElement> & TextareaHTMLAttributes<HTMLTextAreaElement>,
  'id' | 'name' | 'value' | 'onChange' | 'children'
>;

/**
 * A labelled text input bound to one of `of`'s values, with its hint and error: a textarea when
 * `rows` is given. `code` is for keys, identifiers and other text that spell-checking would mark.
 */
export function TextField<T>({
  of,
  name,
  label,
  hint,
  code = false,
  ...attributes
}: {
  of: FieldSource<T>;
  name: TextKeys<T> & string;
  label: ReactNode;
  hint?: ReactNode;
  code?: boolean;
} & TextAttributes) {
  const value = of.values[name] as string;
  const change = (text: string) => of.set(name, text as T[typeof name]);
  const control = { ...attributes, ...(code ? { spellCheck: false } : {}) };
  return (
    <Field label={label} path={`${of.at ?? ''}/${name}`} problem={of.problem} hint={hint}>
      {(props) =>
        attributes.rows === undefined ? (
          <input {...props} {...control} value={value} onChange={(e) => change(e.target.value)} />
        ) : (
          <textarea {...props} {...control} value={value} onChange={(e) => change(e.target.value)} />
        )
      }
    </Field>
  );
}

/** A choice of a select: its value, or its value and the text shown for it. */
export type Choice = string | readonly [value: string, text: ReactNode];

/**
 * The key and the name of something being created, side by side (and whatever else belongs on
 * their row): the key is what code and the API use, the name what people read.
 */
export function KeyAndName<T extends { key: string; name: string }>({
  of,
  keyHint,
  children,
}: {
  of: FieldSource<T>;
  keyHint: ReactNode;
  children?: ReactNode;
}) {
  // Only `key` and `name` are read and written, which every such T has.
  const fields = of as unknown as FieldSource<{ key: string; name: string }>;
  return (
    <div className="row">
      <TextField
        of={fields}
        name="key"
        label="Key"
        hint={
          <>
            {keyHint} {KEY_RULE}
          </>
        }
        code
      />
      <TextField of={fields} name="name" label="Name" hint={NAME_HINT} />
      {children}
    </div>
  );
}

/** A select's options: each its value, or its value and the text shown for it. */
export function Options({ choices }: { choices: readonly Choice[] }) {
  return choices.map((choice) =>
    typeof choice === 'string' ? (
      <option key={choice}>{choice}</option>
    ) : (
      <option key={choice[0]} value={choice[0]}>
        {choice[1]}
      </option>
    ),
  );
}

/** A labelled select bound to one of `of`'s values, with its hint and error. */
export function SelectField<T>({
  of,
  name,
  label,
  hint,
  choices,
  ...attributes
}: {
  of: FieldSource<T>;
  name: TextKeys<T> & string;
  label: ReactNode;
  hint?: ReactNode;
  choices: readonly Choice[];
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'name' | 'value' | 'onChange' | 'children'>) {
  return (
    <Field label={label} path={`${of.at ?? ''}/${name}`} problem={of.problem} hint={hint}>
      {(props) => (
        <select
          {...props}
          {...attributes}
          value={of.values[name] as string}
          onChange={(e) => of.set(name, e.target.value as T[typeof name])}
        >
          <Options choices={choices} />
        </select>
      )}
    </Field>
  );
}

/** A select in a Field whose value the caller holds (not a form's): an environment, a side to compare. */
export function ChoiceField({
  label,
  path,
  problem,
  value,
  choices,
  onChange,
}: {
  label: ReactNode;
  path: string;
  problem?: ApiError | undefined;
  value: string;
  choices: readonly Choice[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label} path={path} problem={problem}>
      {(props) => (
        <select {...props} value={value} onChange={(e) => onChange(e.target.value)}>
          <Options choices={choices} />
        </select>
      )}
    </Field>
  );
}

/** A radio group's buttons, each with its text after it; choosing one calls `onChange` with its value. */
export function RadioChoices<V extends string | boolean>({
  name,
  value,
  choices,
  onChange,
}: {
  name: string;
  value: V;
  choices: readonly (readonly [V, ReactNode])[];
  onChange: (value: V) => void;
}) {
  return choices.map(([choice, text]) => (
    <label key={String(choice)} className="checkbox">
      <input type="radio" name={name} checked={choice === value} onChange={() => onChange(choice)} /> {text}
    </label>
  ));
}

/**
 * Several of a list chosen with a checkbox each, its text after it; ticking one adds it to
 * `chosen` (after the others), unticking takes it out. With `path`, each box's label has the id
 * the API's errors for that item point to (`/environments/0`).
 */
export function CheckboxChoices({
  choices,
  chosen,
  onChange,
  path,
  disabled,
}: {
  choices: readonly (readonly [value: string, text: ReactNode])[];
  chosen: readonly string[];
  onChange: (chosen: string[]) => void;
  path?: string;
  disabled?: boolean;
}) {
  const toggle = (choice: string) =>
    onChange(chosen.includes(choice) ? chosen.filter((c) => c !== choice) : [...chosen, choice]);
  return choices.map(([choice, text], i) => (
    <label key={choice} className="checkbox" id={path === undefined ? undefined : fieldId(`${path}/${i}`)}>
      <input
        type="checkbox"
        disabled={disabled}
        checked={chosen.includes(choice)}
        onChange={() => toggle(choice)}
      />{' '}
      {text}
    </label>
  ));
}

type ChoiceKeys<T> = { [K in keyof T]: T[K] extends string | boolean ? K : never }[keyof T];

/**
 * RadioChoices bound to one of `of`'s values, as TextField and SelectField are; `group` is the
 * buttons' shared name. The fieldset and legend that name the question are the caller's.
 */
export function RadioField<T, K extends ChoiceKeys<T> & string>({
  of,
  name,
  group,
  choices,
}: {
  of: FieldSource<T>;
  name: K;
  group: string;
  choices: readonly (readonly [T[K] & (string | boolean), ReactNode])[];
}) {
  const value = of.values[name] as T[K] & (string | boolean);
  return <RadioChoices name={group} value={value} choices={choices} onChange={(v) => of.set(name, v)} />;
}

interface PasswordFieldProps<T> {
  of: FieldSource<T>;
  name: TextKeys<T> & string;
  label: ReactNode;
  hint?: ReactNode;
  autoComplete: 'current-password' | 'new-password';
}

/** A password box bound to one of `of`'s values; `autoComplete` tells password managers whether to fill or to save it. */
export function PasswordField<T>(props: PasswordFieldProps<T>) {
  return <TextField {...props} type="password" />;
}

/**
 * A field for choosing a new password: every such field states the same length rule and asks the
 * browser's password manager to suggest one.
 */
export function NewPasswordField<T>({
  hint = 'At least 12 characters.',
  ...rest
}: Omit<PasswordFieldProps<T>, 'autoComplete'>) {
  return <PasswordField {...rest} hint={hint} autoComplete="new-password" />;
}

/** The email an account signs in with; `autoComplete` lets password managers pair it with the password. */
export function EmailField<T extends { email: string }>({
  of,
  required = false,
}: {
  of: FieldSource<T>;
  required?: boolean;
}) {
  // Only `email` is read and written, which every such T has.
  const fields = of as unknown as FieldSource<{ email: string }>;
  return (
    <TextField
      of={fields}
      name="email"
      label="Email"
      type="email"
      autoComplete="username"
      required={required}
    />
  );
}
