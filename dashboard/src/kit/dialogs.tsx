import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ApiError } from '../api.ts';
import { ErrorSummary } from './field.tsx';

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

/** What a form in progress needs: the API's problem, if any, and whether a request is under way. */
export function useSubmission() {
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  /** Runs `action`; a thrown ApiError becomes `problem`, shown beside its fields. */
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await action();
    } catch (error) {
      setProblem(error as ApiError);
    } finally {
      setBusy(false);
    }
  }, []);
  return { problem, busy, run, setProblem };
}

/**
 * A form in a modal dialog for creating something: its title, the API's errors (a summary that
 * takes focus, and each beside its field), and Create / Cancel. Escape cancels; the first field
 * takes focus, so typing can start at once.
 */
export function CreateDialog({
  title,
  submitLabel,
  problem,
  busy,
  onSubmit,
  onCancel,
  wide = false,
  children,
}: {
  title: string;
  submitLabel: string;
  problem: ApiError | undefined;
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
  wide?: boolean;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    dialog?.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea')?.focus();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog create-dialog${wide ? ' wide' : ''}`}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        <ErrorSummary problem={problem} />
        {children}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={busy}>
            {submitLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
