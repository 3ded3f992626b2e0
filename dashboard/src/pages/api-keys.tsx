import { useEffect, useRef, useState } from 'react';
import { ROLES } from '../../../src/domain/api-key.ts';
import { type ApiError, type ApiKey, api, enc, type Role, useApi } from '../api.ts';
import { CreateDialog, confirmThen, OpenButton, useForm } from '../kit/dialogs.tsx';
import { ErrorSummary, Field, InlineError, Options, TextField } from '../kit/field.tsx';
import { actionsColumn, ResourceTable } from '../kit/resource-table.tsx';
import { useOptionalProject } from '../project.ts';
import { CopyButton, Empty, PageTitle, ROLE_HELP, Time, toast } from '../ui.tsx';

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
  const [syncing, setSyncing] = useState<ApiKey>();

  const revoke = async (key: ApiKey) => {
    await confirmThen(
      {
        title: `Revoke the key “${key.name}”?`,
        body: (
          <p>
            Applications using <code>{key.prefix}…</code> get 401 from their next request on. This cannot be
            undone.
          </p>
        ),
        confirmLabel: 'Revoke key',
        danger: true,
      },
      async () => {
        await api('DELETE', `/api-keys/${enc(key.id)}`);
        toast(`Key ${key.name} revoked.`);
        keys.reload();
      },
      setProblem,
    );
  };

  const sorted = [...(keys.data ?? [])].sort(
    (a, b) => Number(statusOf(a) !== 'active') - Number(statusOf(b) !== 'active'),
  );

  return (
    <>
      <PageTitle
        actions={<OpenButton label="Create API key" open={creating || !!created} setOpen={setCreating} />}
      >
        {scope ? 'Settings → API keys' : 'Organisation API keys'}
      </PageTitle>
      <p className="muted">
        {scope
          ? `Applications send a key as "Authorization: Bearer <key>". An evaluator key is all an application needs to evaluate the flags of ${scope.project.name}.`
          : 'Organisation-wide keys reach every project. Prefer a project key where one project is enough.'}
      </p>
      {created && <NewSecret created={created} onDone={() => setCreated(undefined)} />}
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
      {scope && syncing && (
        <SyncSelectors keyOf={syncing} projectId={scope.project.id} onDone={() => setSyncing(undefined)} />
      )}
      <ErrorSummary problem={problem} />
      <ResourceTable
        caption="API keys"
        what="API keys"
        rows={keys.data && sorted}
        rowKey={(k) => k.id}
        error={keys.error}
        retry={keys.reload}
        rowClassName={(k) => (statusOf(k) === 'active' ? undefined : 'inactive')}
        empty={
          <Empty title="No API keys yet">
            <p>Create one for each application or service that evaluates flags.</p>
          </Empty>
        }
        columns={[
          { header: 'Name', className: 'strong', cell: (k) => k.name },
          { header: 'Key', cell: (k) => <code>{k.prefix}…</code> },
          { header: 'Role', cell: (k) => k.role },
          {
            header: 'Environments',
            cell: (k) => (k.environments === null ? 'All' : k.environments.join(', ')),
          },
          { header: 'Created', cell: (k) => <Time at={k.createdAt} /> },
          { header: 'Last used', cell: (k) => <Time at={k.lastUsedAt} /> },
          {
            header: 'Status',
            cell: (k) => {
              const status = statusOf(k);
              return (
                <>
                  <span className={`badge ${status}`}>{status}</span>
                  {k.expiresAt && status === 'active' && (
                    <div className="muted small">
                      expires <Time at={k.expiresAt} />
                    </div>
                  )}
                </>
              );
            },
          },
          actionsColumn<ApiKey>(
            (k) =>
              statusOf(k) === 'active' && (
                <>
                  {scope && (
                    <button type="button" className="btn subtle" onClick={() => setSyncing(k)}>
                      flagd sync<span className="visually-hidden"> selectors of {k.name}</span>
                    </button>
                  )}
                  <button type="button" className="btn subtle danger-text" onClick={() => revoke(k)}>
                    Revoke<span className="visually-hidden"> {k.name}</span>
                  </button>
                </>
              ),
          ),
        ]}
      />
    </>
  );
}

/**
 * A key's flagd sync selectors, one per environment it may read: what flagd's in-process
 * providers are configured with. Their credential reads flag definitions and nothing else, so it
 * may end up in application logs (docs/decisions/1771); it is derived, so it can be shown again.
 */
function SyncSelectors({
  keyOf,
  projectId,
  onDone,
}: {
  keyOf: ApiKey;
  projectId: string;
  onDone: () => void;
}) {
  const selectors = useApi<{ environment: string; selector: string }[]>(
    `/api-keys/${enc(keyOf.id)}/flagd-sync?project=${enc(projectId)}`,
  );
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section className="panel" aria-labelledby="sync-title">
      <h2 id="sync-title" tabIndex={-1} ref={ref}>
        flagd sync selectors of “{keyOf.name}”
      </h2>
      <p className="muted">
        Give one to a flagd in-process provider as its <code>selector</code>. The credential after{' '}
        <code>#</code> can read that environment’s flag definitions over flagd sync and nothing else; revoking
        the key revokes it. The key itself is refused there, since providers copy the selector into every
        result’s metadata.
      </p>
      <ErrorSummary problem={selectors.error} />
      {selectors.data?.map(({ environment, selector }) => (
        <div className="secret-row" key={environment}>
          <label htmlFor={`sync-${environment}`}>{environment}</label>
          <input
            id={`sync-${environment}`}
            readOnly
            value={selector}
            spellCheck={false}
            onFocus={(e) => e.target.select()}
            className="mono"
          />
          <CopyButton text={selector} label={`Copy the ${environment} selector`} />
        </div>
      ))}
      <button type="button" className="btn" onClick={onDone}>
        Close
      </button>
    </section>
  );
}

/** The secret, once: with a copy button and a warning that it will not be shown again. */
function NewSecret({ created, onDone }: { created: Created; onDone: () => void }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section className="panel secret" aria-labelledby="secret-title">
      <h2 id="secret-title" tabIndex={-1} ref={ref}>
        Copy the key “{created.name}” now
      </h2>
      <p className="warning">
        <strong>This is the only time the key is shown.</strong> Flagstaff keeps only a hash of it: if it is
        lost, revoke it and create another.
      </p>
      <div className="secret-row">
        <label htmlFor="new-secret" className="visually-hidden">
          The new API key
        </label>
        <input
          id="new-secret"
          readOnly
          value={created.secret}
          spellCheck={false}
          onFocus={(e) => e.target.select()}
          className="mono"
        />
        <CopyButton text={created.secret} label="Copy key" />
      </div>
      <button type="button" className="btn primary" onClick={onDone}>
        I have stored the key
      </button>
    </section>
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
  const scope = useOptionalProject();
  const form = useForm({ name: '', expiresAt: '' });
  const { name, expiresAt: expires } = form.values;
  const { problem } = form;
  const [role, setRole] = useState<Role>('evaluator');
  const [limited, setLimited] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);

  const submit = () =>
    form.run(async () =>
      onCreated(
        await api<Created>('POST', base, {
          name,
          role,
          ...(limited ? { environments: chosen } : {}),
          ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
        }),
      ),
    );

  return (
    <CreateDialog
      what="API key"
      submitLabel="Create key"
      form={form}
      onSubmit={submit}
      onCancel={onCancel}
      wide
    >
      <div className="row">
        <TextField of={form} name="name" label="Name" hint="What uses it, e.g. “checkout service”." />
        <Field label="Role" path="/role" problem={problem} hint={ROLE_HELP[role]}>
          {(props) => (
            <select {...props} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <Options choices={ROLES} />
            </select>
          )}
        </Field>
        <TextField
          of={form}
          name="expiresAt"
          label="Expires (optional)"
          type="date"
          hint="At the end of that day."
        />
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
    </CreateDialog>
  );
}
