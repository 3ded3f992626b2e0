import { type FormEvent, useState } from 'react';
import { type ApiError, api, type Environment, enc } from '../api.ts';
import { useProject } from '../app.tsx';
import { CreateDialog, confirm, useSubmission } from '../kit/dialogs.tsx';
import { ErrorSummary, Field, useFocusFirstField } from '../kit/field.tsx';
import { ResourceTable } from '../kit/resource-table.tsx';
import { can, useSession } from '../session.ts';
import { PageTitle, Time, toast } from '../ui.tsx';

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
      <ResourceTable
        caption="Environments"
        what="environments"
        rows={environments}
        rowKey={(e) => e.id}
        empty={null}
        replaceRow={(e) =>
          editing === e.key ? (
            <EditEnvironment
              environment={e}
              onDone={() => {
                setEditing(undefined);
                reloadEnvironments();
              }}
              onCancel={() => setEditing(undefined)}
            />
          ) : undefined
        }
        columns={[
          {
            header: 'Environment',
            className: 'strong',
            cell: (e) => (
              <>
                {e.name}
                {e.description && <div className="muted small">{e.description}</div>}
              </>
            ),
          },
          { header: 'Key', cell: (e) => <code>{e.key}</code> },
          {
            header: 'Protected',
            cell: (e) =>
              e.protected ? (
                <span className="badge protected">protected</span>
              ) : (
                <span className="muted">no</span>
              ),
          },
          { header: 'Created', cell: (e) => <Time at={e.createdAt} /> },
          mayEdit && {
            header: <span className="visually-hidden">Actions</span>,
            className: 'row-actions',
            cell: (e) => (
              <>
                <button type="button" className="btn subtle" onClick={() => setEditing(e.key)}>
                  Edit<span className="visually-hidden"> {e.name}</span>
                </button>
                <button
                  type="button"
                  className="btn subtle danger-text"
                  onClick={() => remove(e)}
                  disabled={environments.length <= 1}
                  title={environments.length <= 1 ? 'A project keeps at least one environment' : undefined}
                >
                  Delete<span className="visually-hidden"> {e.name}</span>
                </button>
              </>
            ),
          },
        ]}
      />
      <p className="muted small">
        Switching a flag or saving its targeting in a protected environment asks for confirmation first.
      </p>
    </>
  );
}

function CreateEnvironment({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const { project, environments } = useProject();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [copyFrom, setCopyFrom] = useState('');
  const [guarded, setGuarded] = useState<boolean>();
  const { problem, busy, run } = useSubmission();
  const submit = () =>
    run(async () => {
      const created = await api<Environment>('POST', `/projects/${enc(project.id)}/environments`, {
        key,
        ...(name ? { name } : {}),
        ...(copyFrom ? { copyFrom } : {}),
        ...(guarded === undefined ? {} : { protected: guarded }),
      });
      toast(`Environment ${created.name} created.`);
      onDone();
    });
  return (
    <CreateDialog
      title="New environment"
      submitLabel="Create environment"
      problem={problem}
      busy={busy}
      onSubmit={submit}
      onCancel={onCancel}
    >
      <div className="row">
        <Field label="Key" path="/key" problem={problem} hint="e.g. staging">
          {(props) => (
            <input {...props} value={key} onChange={(e) => setKey(e.target.value)} spellCheck={false} />
          )}
        </Field>
        <Field label="Name" path="/name" problem={problem}>
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
      </div>
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
      <ProtectedBox checked={guarded ?? key === 'production'} onChange={setGuarded} />
    </CreateDialog>
  );
}

function ProtectedBox({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label className="checkbox" id="f-protected">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} /> Protected: ask
      before switching flags or saving targeting here
    </label>
  );
}

function EditEnvironment({
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
  const [guarded, setGuarded] = useState(environment.protected);
  const { problem, run } = useSubmission();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api(
        'PATCH',
        `/projects/${enc(project.id)}/environments/${enc(environment.key)}`,
        { name, description, protected: guarded },
        environment.version,
      );
      toast('Environment saved.');
      onDone();
    });
  };
  return (
    <form ref={focusRef} onSubmit={submit} noValidate aria-label={`Edit ${environment.name}`}>
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
      <ProtectedBox checked={guarded} onChange={setGuarded} />
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
