import { type FormEvent, useState } from 'react';
import { type ApiError, api, type Environment, enc } from '../api.ts';
import { useProject } from '../app.tsx';
import { can, useSession } from '../session.ts';
import { confirm, ErrorSummary, Field, PageTitle, Time, toast, useFocusFirstField } from '../ui.tsx';

export function EnvironmentsPage() {
  const { project, environments, reloadEnvironments } = useProject();
  const { me } = useSession();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [problem, setProblem] = useState<ApiError>();
  const mayEdit = can(me, 'editor', project);

  const remove = async (environment: Environment) => {
    const ok = await confirm({
      title: `Delete the environment ${environment.name}?`,
      body: (
        <p>
          Every flag's configuration in <code>{environment.key}</code> is deleted with it, and applications
          evaluating there get errors. This cannot be undone.
        </p>
      ),
      confirmLabel: 'Delete environment',
      danger: true,
    });
    if (!ok) return;
    try {
      await api(
        'DELETE',
        `/projects/${enc(project.id)}/environments/${enc(environment.key)}`,
        undefined,
        environment.version,
      );
      toast(`Environment ${environment.name} deleted.`);
      reloadEnvironments();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  return (
    <>
      <PageTitle
        actions={
          mayEdit &&
          !creating && (
            <button type="button" className="btn primary" onClick={() => setCreating(true)}>
              New environment
            </button>
          )
        }
      >
        Environments
      </PageTitle>
      <p className="muted">Each flag is switched and targeted separately in every environment.</p>
      {creating && (
        <CreateEnvironment
          onDone={() => {
            setCreating(false);
            reloadEnvironments();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <ErrorSummary problem={problem} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Environment</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              {mayEdit && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {environments.map((e) =>
              editing === e.key ? (
                <tr key={e.id}>
                  <td colSpan={mayEdit ? 4 : 3}>
                    <RenameEnvironment
                      environment={e}
                      onDone={() => {
                        setEditing(undefined);
                        reloadEnvironments();
                      }}
                      onCancel={() => setEditing(undefined)}
                    />
                  </td>
                </tr>
              ) : (
                <tr key={e.id}>
                  <td className="strong">
                    {e.name}
                    {e.description && <div className="muted small">{e.description}</div>}
                  </td>
                  <td>
                    <code>{e.key}</code>
                  </td>
                  <td>
                    <Time at={e.createdAt} />
                  </td>
                  {mayEdit && (
                    <td className="row-actions">
                      <button type="button" className="btn subtle" onClick={() => setEditing(e.key)}>
                        Rename<span className="visually-hidden"> {e.name}</span>
                      </button>
                      <button
                        type="button"
                        className="btn subtle danger-text"
                        onClick={() => remove(e)}
                        disabled={environments.length <= 1}
                        title={
                          environments.length <= 1 ? 'A project keeps at least one environment' : undefined
                        }
                      >
                        Delete<span className="visually-hidden"> {e.name}</span>
                      </button>
                    </td>
                  )}
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}

function CreateEnvironment({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const focusRef = useFocusFirstField<HTMLFormElement>();
  const { project, environments } = useProject();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [copyFrom, setCopyFrom] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await api<Environment>('POST', `/projects/${enc(project.id)}/environments`, {
        key,
        ...(name ? { name } : {}),
        ...(copyFrom ? { copyFrom } : {}),
      });
      toast(`Environment ${created.name} created.`);
      onDone();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };
  return (
    <form ref={focusRef} className="panel" onSubmit={submit} noValidate aria-labelledby="new-env">
      <h2 id="new-env">New environment</h2>
      <ErrorSummary problem={problem} />
      <div className="row">
        <Field label="Key" path="/key" problem={problem} hint="e.g. staging">
          {(props) => (
            <input {...props} value={key} onChange={(e) => setKey(e.target.value)} spellCheck={false} />
          )}
        </Field>
        <Field label="Name" path="/name" problem={problem}>
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Start from" path="/copyFrom" problem={problem}>
          {(props) => (
            <select {...props} value={copyFrom} onChange={(e) => setCopyFrom(e.target.value)}>
              <option value="">Every flag off</option>
              {environments.map((e) => (
                <option key={e.key} value={e.key}>
                  A copy of {e.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn primary">
          Create environment
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function RenameEnvironment({
  environment,
  onDone,
  onCancel,
}: {
  environment: Environment;
  onDone: () => void;
  onCancel: () => void;
}) {
  const focusRef = useFocusFirstField<HTMLFormElement>();
  const { project } = useProject();
  const [name, setName] = useState(environment.name);
  const [description, setDescription] = useState(environment.description);
  const [problem, setProblem] = useState<ApiError>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api(
        'PATCH',
        `/projects/${enc(project.id)}/environments/${enc(environment.key)}`,
        { name, description },
        environment.version,
      );
      toast('Environment saved.');
      onDone();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };
  return (
    <form ref={focusRef} onSubmit={submit} noValidate aria-label={`Rename ${environment.name}`}>
      <ErrorSummary problem={problem} />
      <div className="row">
        <Field label="Name" path="/name" problem={problem}>
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Description" path="/description" problem={problem}>
          {(props) => (
            <input {...props} value={description} onChange={(e) => setDescription(e.target.value)} />
          )}
        </Field>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn primary">
          Save
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
