import { useState } from 'react';
import { ApiError, api, enc, type ScheduledChange, useApi } from '../../api.ts';
import { ErrorSummary, Field } from '../../kit/field.tsx';
import { ACTIONS_HEADER, ScrollRegion, TableHead } from '../../kit/resource-table.tsx';
import { useProject } from '../../project.ts';
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
  const { environments } = useProject();
  const { flag, mayEdit, generation } = editor;
  const changes = useApi<ScheduledChange[]>(`/flags/${enc(flag.id)}/scheduled-changes`);
  const { reload } = changes;
  useReloadOnSave(generation, reload);
  const [environment, setEnvironment] = useState(editor.environment);
  const [action, setAction] = useState<ScheduleAction>('on');
  const [variant, setVariant] = useState('');
  const [at, setAt] = useState(inAnHour);
  const [comment, setComment] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const nameOf = (key: string) => environments.find((e) => e.key === key)?.name ?? key;

  const schedule = async () => {
    if (needsVariant(action) && !variant) {
      setProblem(
        new ApiError(400, {
          detail: 'Choose the variant to serve.',
          errors: [{ path: '/patch/defaultVariant', message: 'Choose a variant to serve' }],
        }),
      );
      return;
    }
    setBusy(true);
    setProblem(undefined);
    const patch = schedulePatch(action, variant);
    try {
      await api('POST', `/flags/${enc(flag.id)}/scheduled-changes`, {
        at: new Date(at).toISOString(),
        environment,
        patch,
        ...(comment ? { comment } : {}),
      });
      toast(`Scheduled: ${describeSchedulePatch(patch)} in ${nameOf(environment)}.`);
      setComment('');
      reload();
    } catch (error) {
      setProblem(error as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const cancel = async (change: ScheduledChange) => {
    try {
      await api('DELETE', `/flags/${enc(flag.id)}/scheduled-changes/${enc(change.id)}`);
      toast('Scheduled change cancelled.');
    } catch (error) {
      setProblem(error as ApiError);
    }
    reload();
  };

  return (
    <section className="panel" aria-labelledby="schedule-title">
      <h2 id="schedule-title">Scheduled changes</h2>
      {mayEdit && (
        <form
          className="row schedule-form"
          onSubmit={(e) => {
            e.preventDefault();
            void schedule();
          }}
        >
          <Field label="Environment" path="/environment" problem={problem}>
            {(props) => (
              <select {...props} value={environment} onChange={(e) => setEnvironment(e.target.value)}>
                {editor.environmentKeys.map((key) => (
                  <option key={key} value={key}>
                    {nameOf(key)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Change" path="/patch" problem={problem}>
            {(props) => (
              <select {...props} value={action} onChange={(e) => setAction(e.target.value as ScheduleAction)}>
                {SCHEDULE_ACTIONS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {needsVariant(action) && (
            <Field label="Variant to serve" path="/patch/defaultVariant" problem={problem}>
              {(props) => (
                <select {...props} value={variant} onChange={(e) => setVariant(e.target.value)}>
                  <option value="">Choose a variant</option>
                  {flag.variants.map((v) => (
                    <option key={v.key} value={v.key}>
                      {v.name ?? v.key}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field label="At" path="/at" problem={problem}>
            {(props) => (
              <input {...props} type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
            )}
          </Field>
          <Field label="Comment" path="/comment" problem={problem}>
            {(props) => <input {...props} value={comment} onChange={(e) => setComment(e.target.value)} />}
          </Field>
          <div className="form-actions">
            <button type="submit" className="btn primary" disabled={busy}>
              Schedule
            </button>
          </div>
        </form>
      )}
      <ErrorSummary problem={problem} />
      {changes.data && changes.data.length > 0 && (
        <ScrollRegion label="Scheduled changes of this flag">
          <table className="stacks-on-phone">
            <caption className="visually-hidden">Scheduled changes of this flag</caption>
            <TableHead headers={['When', 'Environment', 'Change', 'By', 'Status', ACTIONS_HEADER]} />
            <tbody>
              {changes.data.map((change) => (
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
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
