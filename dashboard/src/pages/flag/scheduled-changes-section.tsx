import { useState } from 'react';
import { ApiError, api, enc, type ScheduledChange, useApi } from '../../api.ts';
import { ChoiceField, ErrorSummary, Field, type FormPartProps } from '../../kit/field.tsx';
import { ACTIONS_HEADER, StackingTable } from '../../kit/resource-table.tsx';
import { useEnvironmentNames } from '../../project.ts';
import { Time, toast } from '../../ui.tsx';
import {
  describeSchedulePatch,
  needsVariant,
  SCHEDULE_ACTIONS,
  type ScheduleAction,
  schedulePatch,
} from './schedule-actions.ts';
import { type FlagEditor, useReloadOnSave } from './use-flag-editor.ts';

/** A `datetime-local` value an hour from now, in the browser's time zone. */
function inAnHour(): string {
  const at = new Date(Date.now() + 3_600_000);
  at.setSeconds(0, 0);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** Schedule turning the flag on or off, or what it serves by default, in an environment, and see or cancel what is scheduled (docs/product.md §10). */
export function ScheduledChangesSection({ editor }: { editor: FlagEditor }) {
  const { flag, mayEdit, generation } = editor;
  const changes = useApi<ScheduledChange[]>(`/flags/${enc(flag.id)}/scheduled-changes`);
  useReloadOnSave(generation, changes.reload);
  const [problem, setProblem] = useState<ApiError>();
  return (
    <section className="panel" aria-labelledby="schedule-title">
      <h2 id="schedule-title">Scheduled changes</h2>
      {mayEdit && (
        <ScheduleForm editor={editor} problem={problem} onProblem={setProblem} onScheduled={changes.reload} />
      )}
      <ErrorSummary problem={problem} />
      {changes.data && changes.data.length > 0 && (
        <ScheduledTable
          flag={flag}
          changes={changes.data}
          mayEdit={mayEdit}
          onProblem={setProblem}
          onCancelled={changes.reload}
        />
      )}
    </section>
  );
}

/** A change to make later, as a draft: where, what, when, and why. */
interface ScheduleDraft {
  environment: string;
  action: ScheduleAction;
  variant: string;
  at: string;
  comment: string;
}

/** The problem of a change that serves a variant without one chosen: the API's, asked before it is. */
const variantMissing = () =>
  new ApiError(400, {
    detail: 'Choose the variant to serve.',
    errors: [{ path: '/patch/defaultVariant', message: 'Choose a variant to serve' }],
  });

/** The form that schedules a change; the API's problem with it is shown by the section. */
function ScheduleForm({
  editor,
  problem,
  onProblem,
  onScheduled,
}: {
  editor: FlagEditor;
  problem: ApiError | undefined;
  onProblem: (problem: ApiError | undefined) => void;
  onScheduled: () => void;
}) {
  const { flag } = editor;
  const nameOf = useEnvironmentNames();
  const [draft, setDraft] = useState<ScheduleDraft>(() => ({
    environment: editor.environment,
    action: 'on',
    variant: '',
    at: inAnHour(),
    comment: '',
  }));
  const [busy, setBusy] = useState(false);
  const { environment, action, variant, at, comment } = draft;

  const schedule = async () => {
    if (needsVariant(action) && !variant) return onProblem(variantMissing());
    setBusy(true);
    onProblem(undefined);
    const patch = schedulePatch(action, variant);
    try {
      await api('POST', `/flags/${enc(flag.id)}/scheduled-changes`, {
        at: new Date(at).toISOString(),
        environment,
        patch,
        ...(comment ? { comment } : {}),
      });
      toast(`Scheduled: ${describeSchedulePatch(patch)} in ${nameOf(environment)}.`);
      setDraft((current) => ({ ...current, comment: '' }));
      onScheduled();
    } catch (error) {
      onProblem(error as ApiError);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="row schedule-form"
      onSubmit={(e) => {
        e.preventDefault();
        void schedule();
      }}
    >
      <ScheduleFields editor={editor} value={draft} onChange={setDraft} problem={problem} />
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={busy}>
          Schedule
        </button>
      </div>
    </form>
  );
}

/** Where, what, when and why: the scheduled change's fields. */
function ScheduleFields({
  editor,
  value: draft,
  onChange,
  problem,
}: FormPartProps<ScheduleDraft> & { editor: FlagEditor }) {
  const nameOf = useEnvironmentNames();
  const { environment, action, variant, at, comment } = draft;
  const set =
    <K extends keyof ScheduleDraft>(name: K) =>
    (value: ScheduleDraft[K]) =>
      onChange({ ...draft, [name]: value });
  return (
    <>
      <ChoiceField
        label="Environment"
        path="/environment"
        problem={problem}
        value={environment}
        choices={editor.environmentKeys.map((key) => [key, nameOf(key)] as const)}
        onChange={set('environment')}
      />
      <ChoiceField
        label="Change"
        path="/patch"
        problem={problem}
        value={action}
        choices={SCHEDULE_ACTIONS}
        onChange={(value) => set('action')(value as ScheduleAction)}
      />
      {needsVariant(action) && (
        <ChoiceField
          label="Variant to serve"
          path="/patch/defaultVariant"
          problem={problem}
          value={variant}
          choices={[
            ['', 'Choose a variant'],
            ...editor.flag.variants.map((v) => [v.key, v.name ?? v.key] as const),
          ]}
          onChange={set('variant')}
        />
      )}
      <Field label="At" path="/at" problem={problem}>
        {(props) => (
          <input {...props} type="datetime-local" value={at} onChange={(e) => set('at')(e.target.value)} />
        )}
      </Field>
      <Field label="Comment" path="/comment" problem={problem}>
        {(props) => <input {...props} value={comment} onChange={(e) => set('comment')(e.target.value)} />}
      </Field>
    </>
  );
}

/** What is scheduled for the flag, each pending change with a way to cancel it. */
function ScheduledTable({
  flag,
  changes,
  mayEdit,
  onProblem,
  onCancelled,
}: {
  flag: FlagEditor['flag'];
  changes: readonly ScheduledChange[];
  mayEdit: boolean;
  onProblem: (problem: ApiError) => void;
  onCancelled: () => void;
}) {
  const nameOf = useEnvironmentNames();
  const cancel = async (change: ScheduledChange) => {
    try {
      await api('DELETE', `/flags/${enc(flag.id)}/scheduled-changes/${enc(change.id)}`);
      toast('Scheduled change cancelled.');
    } catch (error) {
      onProblem(error as ApiError);
    }
    onCancelled();
  };
  return (
    <StackingTable
      caption="Scheduled changes of this flag"
      captionHidden
      headers={['When', 'Environment', 'Change', 'By', 'Status', ACTIONS_HEADER]}
    >
      {changes.map((change) => (
        <tr key={change.id}>
          <td data-label="When">
            <Time at={change.at} />
          </td>
          <td data-label="Environment">{nameOf(change.environment)}</td>
          <td data-label="Change">
            {describeSchedulePatch(change.patch)}
            {change.comment && <div className="muted">{change.comment}</div>}
          </td>
          <td data-label="By">{change.author.name}</td>
          <td data-label="Status">
            {change.status}
            {change.failure && <div className="error">{change.failure}</div>}
          </td>
          <td className="row-actions">
            {mayEdit && change.status === 'pending' && (
              <button type="button" className="btn subtle danger-text" onClick={() => cancel(change)}>
                Cancel<span className="visually-hidden"> the change at {change.at}</span>
              </button>
            )}
          </td>
        </tr>
      ))}
    </StackingTable>
  );
}
