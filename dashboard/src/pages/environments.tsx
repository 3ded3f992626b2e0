import { useState } from 'react';
import { type ApiError, api, type Environment, enc } from '../api.ts';
import { CreateDialog, confirmThen, OpenButton, useForm } from '../kit/dialogs.tsx';
import { Field, KeyAndName, TextField } from '../kit/field.tsx';
import { InlineForm } from '../kit/inline-form.tsx';
import { actionsColumn, ResourceTable } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
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
    await confirmThen(
      {
        title: `Delete the environment ${environment.name}?`,
        body: (
          <p>
            Every flag's configuration in <code>{environment.key}</code> is deleted with it, and applications
            evaluating there get errors. This cannot be undone.
          </p>
        ),
        confirmLabel: 'Delete environment',
        danger: true,
      },
      async () => {
        await api(
          'DELETE',
          `/projects/${enc(project.id)}/environments/${enc(environment.key)}`,
          undefined,
          environment.version,
        );
        toast(`Environment ${environment.name} deleted.`);
        reloadEnvironments();
      },
      setProblem,
    );
  };

  return (
    <>
      <PageTitle
        actions={mayEdit && <OpenButton label="New environment" open={creating} setOpen={setCreating} />}
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
      <ResourceTable
        problem={problem}
        caption="Environments"
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
          mayEdit &&
            actionsColumn<Environment>((e) => (
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
            )),
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
  const form = useForm({ key: '', name: '', copyFrom: '' });
  const { key, name, copyFrom } = form.values;
  const [guarded, setGuarded] = useState<boolean>();
  const submit = () =>
    form.run(async () => {
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
    <CreateDialog what="environment" form={form} onSubmit={submit} onCancel={onCancel}>
      <KeyAndName of={form} keyHint="e.g. staging" />
      <Field label="Start from" path="/copyFrom" problem={form.problem}>
        {(props) => (
          <select {...props} value={copyFrom} onChange={(e) => form.set('copyFrom', e.target.value)}>
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
  const { project } = useProject();
  const form = useForm({ name: environment.name, description: environment.description });
  const [guarded, setGuarded] = useState(environment.protected);
  const submit = () =>
    form.run(async () => {
      await api(
        'PATCH',
        `/projects/${enc(project.id)}/environments/${enc(environment.key)}`,
        { ...form.values, protected: guarded },
        environment.version,
      );
      toast('Environment saved.');
      onDone();
    });
  return (
    <InlineForm
      label={`Edit ${environment.name}`}
      form={form}
      submitLabel="Save"
      onSubmit={submit}
      onCancel={onCancel}
    >
      <div className="row">
        <TextField of={form} name="name" label="Name" />
        <TextField of={form} name="description" label="Description" />
      </div>
      <ProtectedBox checked={guarded} onChange={setGuarded} />
    </InlineForm>
  );
}
