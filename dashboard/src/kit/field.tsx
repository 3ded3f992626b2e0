import { type ReactNode, useEffect, useRef } from 'react';
import type { ApiError } from '../api.ts';

/** The id of the control for a JSON pointer of the API's errors: `/rules/0/value` → `f-rules-0-value`. */
export const fieldId = (path: string) => `f${path.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** The message the API gave for exactly this field, if any. */
export const errorAt = (problem: ApiError | undefined, path: string): string | undefined =>
  problem?.errors.find((e) => e.path === path)?.message;

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

/** A password box in a Field; `autoComplete` tells password managers whether to fill or to save it. */
export function PasswordField({
  label,
  path,
  problem,
  hint,
  value,
  onChange,
  autoComplete,
}: {
  label: ReactNode;
  path: string;
  problem?: ApiError | undefined;
  hint?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  autoComplete: 'current-password' | 'new-password';
}) {
  return (
    <Field label={label} path={path} problem={problem} hint={hint}>
      {(props) => (
        <input
          {...props}
          type="password"
          autoComplete={autoComplete}
          value={value}
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
