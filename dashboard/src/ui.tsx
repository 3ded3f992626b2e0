import { type ReactNode, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ApiError, Loaded } from './api.ts';
import { relativeTime } from './relative-time.ts';

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

/**
 * What a page loaded, once it has arrived (`children` shows it); until then that it is loading,
 * or what the API said and a way to try again.
 */
export function Arrived<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  /** What is loading, in words: "flag". */
  what: string;
  /** Shows what arrived, to an editor that tells the page when it saved it or must load it again. */
  children: (data: T, saved: SavedProps<T>) => ReactNode;
}) {
  if (loaded.error) return <LoadError error={loaded.error} retry={loaded.reload} />;
  if (loaded.data === undefined) return <Loading what={what} />;
  return children(loaded.data, { onSaved: loaded.setData, onReload: loaded.reload });
}

/** What the editor of a loaded resource tells the page holding it: it saved it, or it must be loaded again. */
export interface SavedProps<T> {
  readonly onSaved: (saved: T) => void;
  readonly onReload: () => void;
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

const absolute = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

/** "3 minutes ago", with the exact time on hover and for screen readers in the datetime. */
export function Time({ at, never = 'Never' }: { at: string | null | undefined; never?: string }) {
  if (!at) return <span className="muted">{never}</span>;
  const date = new Date(at);
  const text = relativeTime(Math.round((date.getTime() - Date.now()) / 1000));
  return (
    <time dateTime={at} title={absolute.format(date)}>
      {text}
    </time>
  );
}

/** The roles of API keys and accounts, with what each may do (docs/product.md §2). */
export const ROLE_HELP: Readonly<Record<string, string>> = {
  evaluator: 'evaluate flags only',
  viewer: 'evaluate and read everything',
  editor: 'viewer + change flags, segments, environments',
  admin: 'editor + API keys, members, audit log',
  edge: 'for flagstaff edge: read snapshots and key hashes, send counts and events; nothing else',
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
