import { type FormEvent, useState } from 'react';
import { ROLES } from '../../../src/domain/api-key.ts';
import { type ApiError, type ApiKey, api, enc, type Role, useApi } from '../api.ts';
import { useOptionalProject } from '../app.tsx';
import {
  confirm,
  Empty,
  ErrorSummary,
  Field,
  InlineError,
  LoadError,
  Loading,
  OneTimeSecret,
  PageTitle,
  ROLE_HELP,
  Time,
  toast,
  useFocusFirstField,
} from '../ui.tsx';

type Created = ApiKey & { secret: string };

const statusOf = (key: ApiKey): 'active' | 'revoked' | 'expired' =>
  key.revokedAt ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= Date.now() ? 'expired' : 'active';

/** Settings → API keys: a project's keys, or the organisation-wide ones. */
export function ApiKeysPage() {
  const scope = useOptionalProject();
  const base = scope ? `/projects/${enc(scope.project.id)}/api-keys` : '/api-keys';
  const keys = useApi<ApiKey[]>(`${base}?limit=1000`);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created>();
  const [problem, setProblem] = useState<ApiError>();

  const revoke = async (key: ApiKey) => {
    const ok = await confirm({
      title: `Revoke the key “${key.name}”?`,
      body: (
        <p>
          Applications using <code>{key.prefix}…</code> get 401 from their next request on. This cannot be
          undone.
        </p>
      ),
      confirmLabel: 'Revoke key',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('DELETE', `/api-keys/${enc(key.id)}`);
      toast(`Key ${key.name} revoked.`);
      keys.reload();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  const sorted = [...(keys.data ?? [])].sort(
    (a, b) => Number(statusOf(a) !== 'active') - Number(statusOf(b) !== 'active'),
  );

  return (
    <>
      <PageTitle
        actions={
          !creating &&
          !created && (
            <button type="button" className="btn primary" onClick={() => setCreating(true)}>
              Create API key
            </button>
          )
        }
      >
        {scope ? 'Settings → API keys' : 'Organisation API keys'}
      </PageTitle>
      <p className="muted">
        {scope
          ? `Applications send a key as "Authorization: Bearer <key>". An evaluator key is all an application needs to evaluate the flags of ${scope.project.name}.`
          : 'Organisation-wide keys reach every project. Prefer a project key where one project is enough.'}
      </p>
      {created && (
        <OneTimeSecret
          title={`Copy the key “${created.name}” now`}
          warning="This is the only time the key is shown."
          detail="Flagstaff keeps only a hash of it: if it is lost, revoke it and create another."
          label="The new API key"
          copyLabel="Copy key"
          doneLabel="I have stored the key"
          value={created.secret}
          onDone={() => setCreated(undefined)}
        />
      )}
      {creating && (
        <CreateKey
          base={base}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            keys.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <ErrorSummary problem={problem} />
      {keys.error && <LoadError error={keys.error} retry={keys.reload} />}
      {keys.loading && <Loading what="API keys" />}
      {keys.data?.length === 0 && (
        <Empty title="No API keys yet">
          <p>Create one for each application or service that evaluates flags.</p>
        </Empty>
      )}
      {sorted.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Role</th>
                <th scope="col">Environments</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((k) => {
                const status = statusOf(k);
                return (
                  <tr key={k.id} className={status === 'active' ? '' : 'inactive'}>
                    <td className="strong">{k.name}</td>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td>{k.role}</td>
                    <td>{k.environments === null ? 'All' : k.environments.join(', ')}</td>
                    <td>
                      <Time at={k.createdAt} />
                    </td>
                    <td>
                      <Time at={k.lastUsedAt} />
                    </td>
                    <td>
                      <span className={`badge ${status}`}>{status}</span>
                      {k.expiresAt && status === 'active' && (
                        <div className="muted small">
                          expires <Time at={k.expiresAt} />
                        </div>
                      )}
                    </td>
                    <td className="row-actions">
                      {status === 'active' && (
                        <button type="button" className="btn subtle danger-text" onClick={() => revoke(k)}>
                          Revoke<span className="visually-hidden"> {k.name}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function CreateKey({
  base,
  onCreated,
  onCancel,
}: {
  base: string;
  onCreated: (key: Created) => void;
  onCancel: () => void;
}) {
  const focusRef = useFocusFirstField<HTMLFormElement>();
  const scope = useOptionalProject();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('evaluator');
  const [limited, setLimited] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const key = await api<Created>('POST', base, {
        name,
        role,
        ...(limited ? { environments: chosen } : {}),
        ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
      });
      onCreated(key);
    } catch (e) {
      setProblem(e as ApiError);
      setBusy(false);
    }
  };

  return (
    <form ref={focusRef} className="panel" onSubmit={submit} noValidate aria-labelledby="new-key">
      <h2 id="new-key">New API key</h2>
      <ErrorSummary problem={problem} />
      <div className="row">
        <Field label="Name" path="/name" problem={problem} hint="What uses it, e.g. “checkout service”.">
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Role" path="/role" problem={problem} hint={ROLE_HELP[role]}>
          {(props) => (
            <select {...props} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Expires (optional)" path="/expiresAt" problem={problem} hint="At the end of that day.">
          {(props) => (
            <input {...props} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
          )}
        </Field>
      </div>
      {scope && (
        <fieldset className="environments-choice">
          <legend>Environments</legend>
          <label className="checkbox">
            <input type="radio" name="env-scope" checked={!limited} onChange={() => setLimited(false)} /> All
            environments, including ones created later
          </label>
          <label className="checkbox">
            <input type="radio" name="env-scope" checked={limited} onChange={() => setLimited(true)} /> Only
            these:
          </label>
          {limited && (
            <div className="checkbox-list" id="f-environments">
              {scope.environments.map((e, i) => (
                <label key={e.key} className="checkbox" id={`f-environments-${i}`}>
                  <input
                    type="checkbox"
                    checked={chosen.includes(e.key)}
                    onChange={(event) =>
                      setChosen(event.target.checked ? [...chosen, e.key] : chosen.filter((c) => c !== e.key))
                    }
                  />{' '}
                  {e.name}
                </label>
              ))}
            </div>
          )}
          <InlineError problem={problem} path="/environments" />
        </fieldset>
      )}
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={busy}>
          Create key
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
