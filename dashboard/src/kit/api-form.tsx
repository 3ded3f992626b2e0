import type { FormHTMLAttributes, ReactNode, Ref } from 'react';
import type { ApiError } from '../api.ts';
import { ErrorSummary } from './field.tsx';

/** The submission under way (useSubmission or useForm). */
export interface Submission {
  readonly problem: ApiError | undefined;
  readonly busy?: boolean;
}

/**
 * Every form of the dashboard: the browser does not validate, the API does (its 400 names each
 * field, docs/product.md §5), and what it answered stands on top, under the form's heading.
 */
export function ApiForm({
  problem,
  heading,
  onSubmit,
  ref,
  children,
  ...attributes
}: {
  problem: ApiError | undefined;
  heading?: ReactNode;
  onSubmit: () => void;
  ref?: Ref<HTMLFormElement>;
  children: ReactNode;
} & Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit' | 'noValidate' | 'children'>) {
  return (
    <form
      {...attributes}
      ref={ref}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {heading}
      <ErrorSummary problem={problem} />
      {children}
    </form>
  );
}

/**
 * A form that stands on its page alone (signing in, choosing a password): its fields, then one
 * submit button that says what is happening while the request runs. Forms that can be abandoned
 * are InlineForm or CreateDialog, which add Cancel.
 */
export function SubmitForm({
  form: { problem, busy = false },
  onSubmit,
  submitLabel,
  busyLabel,
  wide = false,
  children,
}: {
  form: Submission;
  onSubmit: () => void;
  submitLabel: string;
  busyLabel: string;
  /** As wide as the card it stands in (the sign-in pages). */
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <ApiForm problem={problem} onSubmit={onSubmit}>
      {children}
      <button type="submit" className={wide ? 'btn primary wide' : 'btn primary'} disabled={busy}>
        {busy ? busyLabel : submitLabel}
      </button>
    </ApiForm>
  );
}
