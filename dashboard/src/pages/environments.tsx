import { useState } from 'react';
import { type ApiError, api, apiPage, type Environment, enc, type FlagSummary } from '../api.ts';
import { requiredApprovals } from '../change-reach.ts';
import { counted } from '../kit/counted.ts';
import { CreateDialog, confirmThen, useForm } from '../kit/dialogs.tsx';
import { Field, type FormPartProps, KeyAndName, TextField } from '../kit/field.tsx';
import { InlineForm } from '../kit/inline-form.tsx';
import { actionsColumn, type Column, ResourceTable } from '../kit/resource-table.tsx';
import { useProject } from '../project.ts';
import { can, useSession } from '../session.ts';
import { Time, toast } from '../ui.tsx';
import { ListPageTitle } from './list-page-title.tsx';

/** Most approvals an environment may require (the API's limit, decision 1003). */
const MOST_APPROVALS = 5;

const approvalsText = (n: number) => (n === 0 ? 'None' : counted(n, 'approval'));
const flagsText = (n: number) => counted(n, 'flag is', 'flags are');

/** How many of the project's flags are on in the environment: the count of a filtered page of one. */
async function flagsOnIn(projectId: string, environment: string): Promise<number> {
  const { total } = await apiPage<FlagSummary>(
    `/projects/${enc(projectId)}/flags?environment=${enc(environment)}&enabled=true&limit=1`,
  );
  return total ?? 0;
}

/**
 * The project's environments. Governance is an admin's (decision 1003 and docs/decisions/1711):
 * only admins see the controls for `protected` and required approvals, and Delete; editors
 * rename; everyone sees the values.
 */
export function EnvironmentsPage() {
  const { project, reloadEnvironments } = useProject();
  const { me } = useSession();
  const [creating, setCreating] = useState(false);
  const admin = can(me, 'admin', project);
  return (
    <>
      <ListPageTitle newLabel="New environment" creating={creating} setCreating={setCreating}>
        Environments
      </ListPageTitle>
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
      <EnvironmentsTable />
      <p className="muted small">
        Switching a flag or saving its targeting in a protected environment asks for confirmation first. Where
        approvals are required, a change by anyone but an admin becomes a change request that others approve.
        {!admin && ' Only admins change protection and approvals, and delete environments.'}
      </p>
    </>
  );
}

/**
 * Deletes an environment once an admin confirms it, typing its key, told how many flags are on
 * there now; a refusal goes to `onProblem`.
 */
async function deleteEnvironment(
  projectId: string,
  environment: Environment,
  onDeleted: () => void,
  onProblem: (problem: ApiError | undefined) => void,
) {
  onProblem(undefined);
  let on: number;
  try {
    on = await flagsOnIn(projectId, environment.key);
  } catch (error) {
    onProblem(error as ApiError);
    return;
  }
  await confirmThen(
    {
      title: `Delete the environment ${environment.name}?`,
      body: (
        <>
          <p>
            <strong>{flagsText(on)} on</strong> in {environment.name} now.
          </p>
          <p>
            Every flag's configuration in <code>{environment.key}</code> is deleted with it, and applications
            evaluating there get errors. This cannot be undone.
          </p>
        </>
      ),
      confirmLabel: 'Delete environment',
      danger: true,
      typeToConfirm: environment.key,
    },
    async () => {
      await api(
        'DELETE',
        `/projects/${enc(projectId)}/environments/${enc(environment.key)}`,
        undefined,
        environment.version,
      );
      toast(`Environment ${environment.name} deleted.`);
      onDeleted();
    },
    onProblem,
  );
}

/** The environments with their protection and approvals; editors edit one in its row, admins delete. */
function EnvironmentsTable() {
  const { project, environments, reloadEnvironments } = useProject();
  const { me } = useSession();
  const [editing, setEditing] = useState<string>();
  const [problem, setProblem] = useState<ApiError>();
  const admin = can(me, 'admin', project);
  const remove = (e: Environment) => deleteEnvironment(project.id, e, reloadEnvironments, setProblem);
  return (
    <ResourceTable
      problem={problem}
      caption="Environments"
      rows={environments}
      empty={null}
      replaceRow={(e) =>
        editing === e.key ? (
          <EditEnvironment
            environment={e}
            governs={admin}
            onDone={() => {
              setEditing(undefined);
              reloadEnvironments();
            }}
            onCancel={() => setEditing(undefined)}
          />
        ) : undefined
      }
      columns={[
        ...ENVIRONMENT_COLUMNS,
        can(me, 'editor', project) &&
          actionsColumn<Environment>((e) => (
            <>
              <button type="button" className="btn subtle" onClick={() => setEditing(e.key)}>
                Edit<span className="visually-hidden"> {e.name}</span>
              </button>
              {admin && (
                <button
                  type="button"
                  className="btn subtle danger-text"
                  onClick={() => remove(e)}
                  disabled={environments.length <= 1}
                  title={environments.length <= 1 ? 'A project keeps at least one environment' : undefined}
                >
                  Delete<span className="visually-hidden"> {e.name}</span>
                </button>
              )}
            </>
          )),
      ]}
    />
  );
}

/** What everyone sees of an environment. */
const ENVIRONMENT_COLUMNS: readonly Column<Environment>[] = [
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
      e.protected ? <span className="badge protected">protected</span> : <span className="muted">no</span>,
  },
  {
    header: 'Approvals required',
    cell: (e) =>
      requiredApprovals(e) > 0 ? (
        <span className="badge protected">{approvalsText(requiredApprovals(e))}</span>
      ) : (
        <span className="muted">None</span>
      ),
  },
  { header: 'Created', cell: (e) => <Time at={e.createdAt} /> },
];

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
  governs,
  onDone,
  onCancel,
}: {
  environment: Environment;
  /** An admin: protection and approvals are theirs to change. */
  governs: boolean;
  onDone: () => void;
  onCancel: () => void;
}) {
  const { project } = useProject();
  const form = useForm({
    name: environment.name,
    description: environment.description,
    requiredApprovals: String(requiredApprovals(environment)),
  });
  const [guarded, setGuarded] = useState(environment.protected);
  const { name, description } = form.values;
  const approvals = form.values.requiredApprovals;
  const submit = () =>
    form.run(async () => {
      // Only what changed: the governance fields are an admin's, so an editor never sends them.
      // What does not parse is sent as typed, for the API to say what is wrong (decision 0602).
      const typed = /^\s*-?\d+\s*$/.test(approvals) ? Number(approvals) : approvals;
      await api(
        'PATCH',
        `/projects/${enc(project.id)}/environments/${enc(environment.key)}`,
        {
          name,
          description,
          ...(governs && guarded !== environment.protected ? { protected: guarded } : {}),
          ...(governs && typed !== requiredApprovals(environment) ? { requiredApprovals: typed } : {}),
        },
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
        {governs && (
          <ApprovalsField
            value={approvals}
            onChange={(typed) => form.set('requiredApprovals', typed)}
            problem={form.problem}
          />
        )}
      </div>
      {governs && <ProtectedBox checked={guarded} onChange={setGuarded} />}
    </InlineForm>
  );
}

/** How many others' approvals a change by a non-admin needs here, as typed (the API checks it). */
function ApprovalsField({ value, onChange, problem }: FormPartProps<string>) {
  return (
    <Field
      label="Approvals required"
      path="/requiredApprovals"
      problem={problem}
      hint={`0–${MOST_APPROVALS}: others' approvals a change by a non-admin needs before it applies.`}
    >
      {(props) => (
        <input
          {...props}
          type="number"
          inputMode="numeric"
          min={0}
          max={MOST_APPROVALS}
          step={1}
          className="narrow"
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}
