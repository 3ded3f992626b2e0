import { type ReactNode, useId } from 'react';
import { ApiForm, type Submission } from './api-form.tsx';
import { useFocusFirstField } from './field.tsx';

/**
 * A form shown in the page rather than in a dialog (a panel, or a table row being edited): the
 * API's errors on top, its fields, then submit and Cancel. Its first field takes focus, as it
 * opens because the person asked.
 */
export function InlineForm({
  label,
  title,
  className,
  form: { problem, busy },
  submitLabel,
  onSubmit,
  onCancel,
  children,
}: {
  /** The form's accessible name when it has no visible title. */
  label?: string;
  /** A visible heading that names the form. */
  title?: string;
  className?: string;
  form: Submission;
  submitLabel: string;
  onSubmit: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const ref = useFocusFirstField<HTMLFormElement>();
  const id = useId();
  const titleId = title ? id : undefined;
  return (
    <ApiForm
      ref={ref}
      className={className}
      aria-label={label}
      aria-labelledby={titleId}
      problem={problem}
      heading={title && <h2 id={titleId}>{title}</h2>}
      onSubmit={onSubmit}
    >
      {children}
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </ApiForm>
  );
}
