import { useEffect, useState } from 'react';
import { type ApiError, api, type ChangeRequest, type Dependant, enc, type Flag, useApi } from '../../api.ts';
import { CheckboxChoices, ErrorSummary, useFocusFirstField } from '../../kit/field.tsx';
import { useEnvironmentNames, useProject } from '../../project.ts';
import { Link } from '../../router.tsx';
import { FlagPicker } from '../flag-picker.tsx';
import type { FlagEditor } from './use-flag-editor.ts';

interface Row {
  readonly flag: string;
  readonly variants: readonly string[];
}

/**
 * The open environment's prerequisites (docs/product.md §10): other flags that must serve one of the chosen
 * variants for this one to run. Saved on their own, like a switch, so they do not mix with the draft.
 */
export function PrerequisitesSection({ editor }: { editor: FlagEditor }) {
  const { flag, environment, mayEdit } = editor;
  const environmentName = useEnvironmentNames()(environment);
  const { rows, setRows, changed, save, busy, problem } = usePrerequisites(editor, environmentName);
  return (
    <section className="panel" aria-labelledby="prerequisites-title">
      <h2 id="prerequisites-title">Prerequisites in {environmentName}</h2>
      <p className="muted">
        When on, this flag serves its off variant unless every flag below is on and serves one of the ticked
        variants.
      </p>
      {rows.map((row, index) => (
        <PrerequisiteRow
          // biome-ignore lint/suspicious/noArrayIndexKey: a row is its place while its flag is being chosen
          key={index}
          at={`/environments/${environment}/prerequisites/${index}`}
          problem={problem}
          row={row}
          // Not the flag itself, and each flag once: the API refuses both.
          excluding={[flag.key, ...rows.filter((_, i) => i !== index).map((r) => r.flag)]}
          readOnly={!mayEdit}
          onChange={(next) => setRows(rows.map((r, i) => (i === index ? next : r)))}
          onRemove={() => setRows(rows.filter((_, i) => i !== index))}
        />
      ))}
      {mayEdit && (
        <div className="actions">
          <button
            type="button"
            className="btn"
            disabled={rows.some((r) => r.flag === '')}
            onClick={() => setRows([...rows, { flag: '', variants: [] }])}
          >
            Add prerequisite
          </button>
          {changed && (
            <button type="button" className="btn primary" disabled={busy} onClick={save}>
              Save prerequisites
            </button>
          )}
        </div>
      )}
      <ErrorSummary problem={problem} />
      <RequiredBy flag={flag} />
    </section>
  );
}

/** The open environment's prerequisites as edited, and saving them on their own. */
function usePrerequisites(editor: FlagEditor, environmentName: string) {
  const { flag, environment } = editor;
  const stored = flag.environments[environment]?.prerequisites ?? [];
  const [rows, setRows] = useState<Row[]>([...stored]);
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setRows([...(flag.environments[environment]?.prerequisites ?? [])]), [flag, environment]);
  const save = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await api<Flag | ChangeRequest>(
        'PATCH',
        `/flags/${enc(flag.id)}?environment=${enc(environment)}`,
        { prerequisites: rows.length === 0 ? null : rows },
        flag.version,
      );
      editor.written(answer, () => `Saved the prerequisites in ${environmentName}.`);
    } catch (error) {
      editor.refusedIn(setProblem)(error as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return { rows, setRows, changed: JSON.stringify(rows) !== JSON.stringify(stored), save, busy, problem };
}

/** The flags that require this one, and where. */
function RequiredBy({ flag }: { flag: Flag }) {
  const { project } = useProject();
  const dependants = useApi<Dependant[]>(`/flags/${enc(flag.id)}/dependants`);
  if (!dependants.data || dependants.data.length === 0) return null;
  return (
    <p>
      Required by:{' '}
      {dependants.data.map((d, i) => (
        <span key={d.key}>
          {i > 0 && ', '}
          <Link to={`/projects/${enc(project.key)}/flags/${enc(d.key)}`}>{d.key}</Link> (
          {d.environments.join(', ')})
        </span>
      ))}
    </p>
  );
}

/** One prerequisite: the flag it names, and which of that flag's variants (read with it) it requires. */
function PrerequisiteRow({
  at,
  problem,
  row,
  excluding,
  readOnly,
  onChange,
  onRemove,
}: {
  /** Where the API's errors about this prerequisite point. */
  at: string;
  problem: ApiError | undefined;
  row: Row;
  excluding: readonly string[];
  readOnly: boolean;
  onChange: (row: Row) => void;
  onRemove: () => void;
}) {
  const { project } = useProject();
  const required = useApi<Flag>(row.flag ? `/projects/${enc(project.id)}/flags/${enc(row.flag)}` : null);
  // A row added by "Add prerequisite" starts without a flag: its field takes focus to choose one.
  const focus = useFocusFirstField<HTMLFieldSetElement>();
  return (
    <fieldset className="prerequisite" ref={row.flag === '' ? focus : undefined}>
      <legend className="visually-hidden">Prerequisite {row.flag}</legend>
      <FlagPicker
        path={`${at}/flag`}
        problem={problem}
        className="inline"
        value={row.flag}
        excluding={excluding}
        archived={false}
        disabled={readOnly}
        onChoose={(chosen) => onChange({ flag: chosen.key, variants: [] })}
      />
      <span className="muted">must serve</span>
      <CheckboxChoices
        choices={(required.data?.variants ?? []).map((v) => [v.key, v.key])}
        chosen={row.variants}
        onChange={(variants) => onChange({ ...row, variants })}
        disabled={readOnly}
      />
      {!readOnly && (
        <button type="button" className="btn subtle danger-text" onClick={onRemove}>
          Remove<span className="visually-hidden"> {row.flag}</span>
        </button>
      )}
    </fieldset>
  );
}
