import { type ReactNode, useCallback, useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import type { ApiError } from './api.ts';

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

/** An on/off switch: a button with role=switch, so keyboards and screen readers know it. */
export function Switch({
  checked,
  onChange,
  label,
  disabled,
  id,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  disabled?: boolean;
  id?: string;
}) {
  return (
    <button
      type="button"
      role="switch"
      id={id}
      aria-checked={checked}
      aria-label={label}
      title={label}
      className="switch"
      disabled={disabled}
      onClick={() => onChange(!checked)}
    >
      <span aria-hidden="true" className="switch-track">
        <span className="switch-thumb" />
      </span>
      <span className="switch-text" aria-hidden="true">
        {checked ? 'On' : 'Off'}
      </span>
    </button>
  );
}

export const Loading = ({ what = '' }: { what?: string }) => (
  <p className="loading" role="status">
    <span className="spinner" aria-hidden="true" /> Loading{what ? ` ${what}` : ''}…
  </p>
);

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** A failed load: what the API said, and a way to try again. */
export function LoadError({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div className="error-summary" role="alert">
      <p>
        <strong>
          {error.status === 403 ? 'You do not have access to this.' : 'This could not be loaded.'}
        </strong>{' '}
        {error.message}
      </p>
      {retry && (
        <button type="button" className="btn" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** The page's heading; it takes focus when the page opens, so screen readers announce the new page. */
export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div className="page-title">
      <h1 tabIndex={-1} ref={ref}>
        {children}
      </h1>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

// Confirmation dialog: one for the app, opened by confirm() from anywhere.

export interface ConfirmOptions {
  readonly title: string;
  readonly body?: ReactNode;
  readonly confirmLabel: string;
  readonly danger?: boolean;
}

let openConfirm: (options: ConfirmOptions) => Promise<boolean> = async (o) => window.confirm(o.title);

/** Asks before something that cannot be undone; resolves to the answer. */
export const confirm = (options: ConfirmOptions) => openConfirm(options);

/** Renders the app's confirmation dialog (a native <dialog>: focus stays inside, Escape cancels). */
export function ConfirmHost() {
  const [asked, setAsked] = useState<{ options: ConfirmOptions; resolve: (ok: boolean) => void } | null>(
    null,
  );
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    openConfirm = (options) =>
      new Promise((resolve) => {
        setAsked({ options, resolve });
      });
  }, []);
  useEffect(() => {
    const dialog = ref.current;
    if (asked && dialog && !dialog.open) dialog.showModal();
  }, [asked]);
  const answer = useCallback(
    (ok: boolean) => {
      asked?.resolve(ok);
      setAsked(null);
      ref.current?.close();
    },
    [asked],
  );
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        answer(false);
      }}
    >
      {asked && (
        <form
          method="dialog"
          onSubmit={(event) => {
            event.preventDefault();
            answer(true);
          }}
        >
          <h2 id={titleId}>{asked.options.title}</h2>
          {asked.options.body && <div className="dialog-body">{asked.options.body}</div>}
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => answer(false)}>
              Cancel
            </button>
            <button type="submit" className={`btn ${asked.options.danger ? 'danger' : 'primary'}`}>
              {asked.options.confirmLabel}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

// Toasts: short confirmations read out by screen readers.

let toasts: { id: number; text: string }[] = [];
const toastListeners = new Set<() => void>();
let toastId = 0;

export function toast(text: string): void {
  const id = ++toastId;
  toasts = [...toasts.slice(-2), { id, text }];
  for (const l of toastListeners) l();
  setTimeout(() => {
    toasts = toasts.filter((t) => t.id !== id);
    for (const l of toastListeners) l();
  }, 3500);
}

export function Toasts() {
  const list = useSyncExternalStore(
    (l) => {
      toastListeners.add(l);
      return () => toastListeners.delete(l);
    },
    () => toasts,
  );
  return (
    <div className="toasts" role="status" aria-live="polite">
      {list.map((t) => (
        <p key={t.id} className="toast">
          {t.text}
        </p>
      ))}
    </div>
  );
}

/** Copies text, and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without the clipboard API (plain HTTP on another host), select-and-copy still works.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <button type="button" className="btn" onClick={copy}>
      {copied ? 'Copied ✓' : label}
    </button>
  );
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const absolute = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

/** "3 minutes ago", with the exact time on hover and for screen readers in the datetime. */
export function Time({ at, never = 'Never' }: { at: string | null | undefined; never?: string }) {
  if (!at) return <span className="muted">{never}</span>;
  const date = new Date(at);
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 31536000],
    ['month', 2592000],
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  const [unit, size] = units.find(([, s]) => Math.abs(seconds) >= s) ?? ['second', 1];
  const text = Math.abs(seconds) < 45 ? 'just now' : relative.format(Math.round(seconds / size), unit);
  return (
    <time dateTime={at} title={absolute.format(date)}>
      {text}
    </time>
  );
}

/** The roles of API keys and accounts, with what each may do (SPEC §2). */
export const ROLE_HELP: Readonly<Record<string, string>> = {
  evaluator: 'evaluate flags only',
  viewer: 'evaluate and read everything',
  editor: 'viewer + change flags, segments, environments',
  admin: 'editor + API keys, members, audit log',
};

/** Tabs as WAI-ARIA describes them: arrow keys move between tabs, Tab moves into the panel. */
export function Tabs({
  label,
  tabs,
  selected,
  onSelect,
  idPrefix,
}: {
  label: string;
  tabs: readonly { readonly key: string; readonly label: ReactNode }[];
  selected: string;
  onSelect: (key: string) => void;
  idPrefix: string;
}) {
  const move = (event: React.KeyboardEvent, index: number) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    const to = event.key === 'Home' ? 0 : event.key === 'End' ? tabs.length - 1 : index + delta;
    if (to === index || !['ArrowRight', 'ArrowLeft', 'Home', 'End'].includes(event.key)) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    if (!next) return;
    onSelect(next.key);
    document.getElementById(`${idPrefix}-tab-${next.key}`)?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className="tabs">
      {tabs.map((t, i) => (
        <button
          key={t.key}
          type="button"
          role="tab"
          id={`${idPrefix}-tab-${t.key}`}
          aria-selected={t.key === selected}
          aria-controls={`${idPrefix}-panel`}
          tabIndex={t.key === selected ? 0 : -1}
          onClick={() => onSelect(t.key)}
          onKeyDown={(e) => move(e, i)}
        >
          {t.label}
        </button>
      ))}
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

/** A secret shown once (a new API key, a webhook's signing secret): focused, with a copy button and a warning. */
export function OneTimeSecret({
  title,
  warning,
  detail,
  label,
  copyLabel,
  doneLabel,
  value,
  onDone,
}: {
  title: string;
  warning: string;
  detail: string;
  label: string;
  copyLabel: string;
  doneLabel: string;
  value: string;
  onDone: () => void;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  const id = useId();
  useEffect(() => ref.current?.focus(), []);
  return (
    <section className="panel secret" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1} ref={ref}>
        {title}
      </h2>
      <p className="warning">
        <strong>{warning}</strong> {detail}
      </p>
      <div className="secret-row">
        <label htmlFor={`${id}-value`} className="visually-hidden">
          {label}
        </label>
        <input
          id={`${id}-value`}
          readOnly
          value={value}
          spellCheck={false}
          onFocus={(e) => e.target.select()}
          className="mono"
        />
        <CopyButton text={value} label={copyLabel} />
      </div>
      <button type="button" className="btn primary" onClick={onDone}>
        {doneLabel}
      </button>
    </section>
  );
}
