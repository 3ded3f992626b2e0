import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ApiError } from '../api.ts';
import { ApiForm, type Submission } from './api-form.tsx';

// Confirmation dialog: one for the app, opened by confirm() from anywhere.

export interface ConfirmOptions {
  readonly title: string;
  readonly body?: ReactNode;
  readonly confirmLabel: string;
  /** What declining does, when "Cancel" does not say it (e.g. "Keep my edits"). */
  readonly cancelLabel?: string;
  readonly danger?: boolean;
  /** What must be typed before the confirm button works (e.g. an environment's key). */
  readonly typeToConfirm?: string;
}

let openConfirm: (options: ConfirmOptions) => Promise<boolean> = async (o) => window.confirm(o.title);

/** Asks before something that cannot be undone; resolves to the answer. */
export const confirm = (options: ConfirmOptions) => openConfirm(options);

/**
 * Asks first, then does what cannot be undone; what the API answers instead becomes `onProblem`'s
 * (the page shows it above its list).
 */
export async function confirmThen(
  options: ConfirmOptions,
  action: () => Promise<void>,
  onProblem: (problem: ApiError) => void,
): Promise<void> {
  if (!(await confirm(options))) return;
  try {
    await action();
  } catch (error) {
    onProblem(error as ApiError);
  }
}

/** Renders the app's confirmation dialog (a native <dialog>: focus stays inside, Escape cancels). */
export function ConfirmHost() {
  const [asked, setAsked] = useState<{ options: ConfirmOptions; resolve: (ok: boolean) => void } | null>(
    null,
  );
  const [typed, setTyped] = useState('');
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    openConfirm = (options) =>
      new Promise((resolve) => {
        setTyped('');
        setAsked({ options, resolve });
      });
  }, []);
  useEffect(() => {
    const dialog = ref.current;
    if (asked && dialog && !dialog.open) {
      dialog.showModal();
      // Typing starts at once when something must be typed; else the safe choice has focus.
      dialog
        .querySelector<HTMLElement>(asked.options.typeToConfirm === undefined ? 'button' : 'input')
        ?.focus();
    }
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
        <ConfirmForm
          options={asked.options}
          titleId={titleId}
          typed={typed}
          onType={setTyped}
          onAnswer={answer}
        />
      )}
    </dialog>
  );
}

/** The question asked: its title and body, what must be typed first if anything, and the two answers. */
function ConfirmForm({
  options,
  titleId,
  typed,
  onType,
  onAnswer,
}: {
  options: ConfirmOptions;
  titleId: string;
  typed: string;
  onType: (typed: string) => void;
  onAnswer: (ok: boolean) => void;
}) {
  const typedId = useId();
  const mustType = options.typeToConfirm;
  const typedRight = mustType === undefined || typed === mustType;
  return (
    <form
      method="dialog"
      onSubmit={(event) => {
        event.preventDefault();
        if (typedRight) onAnswer(true);
      }}
    >
      <h2 id={titleId}>{options.title}</h2>
      {options.body && <div className="dialog-body">{options.body}</div>}
      {mustType !== undefined && (
        <div className="field">
          <label htmlFor={typedId}>
            Type <code>{mustType}</code> to confirm
          </label>
          <input
            id={typedId}
            value={typed}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => onType(event.target.value)}
          />
        </div>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => onAnswer(false)}>
          {options.cancelLabel ?? 'Cancel'}
        </button>
        <button
          type="submit"
          className={`btn ${options.danger ? 'danger' : 'primary'}`}
          disabled={!typedRight}
        >
          {options.confirmLabel}
        </button>
      </div>
    </form>
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

/** A form's values, for the kit's fields (a FieldSource), with its submission. */
export function useForm<T>(initial: T) {
  const [values, setValues] = useState(initial);
  const submission = useSubmission();
  const set = useCallback(<K extends keyof T>(name: K, value: T[K]) => {
    setValues((current) => ({ ...current, [name]: value }));
  }, []);
  return { ...submission, values, set };
}

/** What a page's create form is given: where to create, and what to do once made or abandoned. */
export interface CreateFormProps<T> {
  readonly base: string;
  readonly onCreated: (created: T) => void;
  readonly onCancel: () => void;
}

/**
 * A page's create form and what creating answered that is shown once (a key's secret): making one
 * closes the form, reloads the page's list and keeps the answer until the person is done with it.
 */
export function useCreation<T>(reload: () => void) {
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<T>();
  return {
    creating,
    setCreating,
    created,
    done: (value: T) => {
      setCreating(false);
      setCreated(value);
      reload();
    },
    cancel: () => setCreating(false),
    dismiss: () => setCreated(undefined),
  };
}

/** The page's button that opens its create dialog; it is hidden while the dialog is open. */
export function OpenButton({
  label,
  open,
  setOpen,
}: {
  label: string;
  open: boolean;
  setOpen: (open: boolean) => void;
}) {
  return open ? null : (
    <button type="button" className="btn primary" onClick={() => setOpen(true)}>
      {label}
    </button>
  );
}

/** What is created: the title says "New …" and the button "Create …"; or both in words of their own. */
type DialogWords =
  | { what: string; title?: string; submitLabel?: string }
  | { what?: undefined; title: string; submitLabel: string };

/**
 * A form in a modal dialog for creating something: its title, the API's errors (a summary that
 * takes focus, and each beside its field), and Create / Cancel. Escape cancels; the first field
 * takes focus, so typing can start at once.
 */
export function CreateDialog({
  what,
  title = `New ${what}`,
  submitLabel = `Create ${what}`,
  form: { problem, busy },
  onSubmit,
  onCancel,
  wide = false,
  children,
}: DialogWords & {
  form: Submission;
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
      <ApiForm problem={problem} heading={<h2 id={titleId}>{title}</h2>} onSubmit={onSubmit}>
        {children}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={busy}>
            {submitLabel}
          </button>
        </div>
      </ApiForm>
    </dialog>
  );
}
