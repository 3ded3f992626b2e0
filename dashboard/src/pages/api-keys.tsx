import { useState } from 'react';
import { KEY_ROLES } from '../../../src/domain/api-key.ts';
import {
  type ApiError,
  type ApiKey,
  api,
  type CreatedApiKey,
  enc,
  type Loaded,
  type Role,
  type SyncSelector,
  useAll,
  useApi,
} from '../api.ts';
import {
  CreateDialog,
  type CreateFormProps,
  confirmThen,
  OpenButton,
  useCreation,
  useForm,
} from '../kit/dialogs.tsx';
import {
  CheckboxChoices,
  ErrorSummary,
  type FormPartProps,
  InlineError,
  RadioChoices,
  SelectField,
  TextField,
} from '../kit/field.tsx';
import { CopyableValue, OpenedPanel } from '../kit/opened-panel.tsx';
import { actionsColumn, ResourceTable } from '../kit/resource-table.tsx';
import { useOptionalProject } from '../project.ts';
import { Empty, PageTitle, ROLE_HELP, Time, toast } from '../ui.tsx';

const statusOf = (key: ApiKey): 'active' | 'revoked' | 'expired' =>
  key.revokedAt ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= Date.now() ? 'expired' : 'active';

/** Settings → API keys: a project's keys, or the organisation-wide ones. */
export function ApiKeysPage() {
  const scope = useOptionalProject();
  const base = scope ? `/projects/${enc(scope.project.id)}/api-keys` : '/api-keys';
  const keys = useAll<ApiKey>(`${base}?limit=1000`);
  const creation = useCreation<CreatedApiKey>(keys.reload);
  const [problem, setProblem] = useState<ApiError>();
  const [syncing, setSyncing] = useState<ApiKey>();
  const revoke = (key: ApiKey) => revokeKey(key, keys.reload, setProblem);

  return (
    <>
      <PageTitle
        actions={
          <OpenButton
            label="Create API key"
            open={creation.creating || !!creation.created}
            setOpen={creation.setCreating}
          />
        }
      >
        {scope ? 'Settings → API keys' : 'Organisation API keys'}
      </PageTitle>
      <p className="muted">
        {scope
          ? `Applications send a key as "Authorization: Bearer <key>". An evaluator key is all an application needs to evaluate the flags of ${scope.project.name}.`
          : 'Organisation-wide keys reach every project. Prefer a project key where one project is enough.'}
      </p>
      {creation.created && <NewSecret created={creation.created} onDone={creation.dismiss} />}
      {creation.creating && <CreateKey base={base} onCreated={creation.done} onCancel={creation.cancel} />}
      {scope && syncing && (
        <SyncSelectors keyOf={syncing} projectId={scope.project.id} onDone={() => setSyncing(undefined)} />
      )}
      <ErrorSummary problem={problem} />
      <KeysTable keys={keys} onSync={scope ? setSyncing : undefined} onRevoke={revoke} />
    </>
  );
}

/** Revokes a key once the person confirms it; a refusal lands in `onProblem`. */
const revokeKey = (key: ApiKey, reload: () => void, onProblem: (problem: ApiError) => void) =>
  confirmThen(
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
      reload();
    },
    onProblem,
  );

/**
 * The keys, active ones first, each with what it may reach and when it was last used; an active
 * key can be revoked, and in a project its flagd sync selectors shown (`onSync`).
 */
function KeysTable({
  keys,
  onSync,
  onRevoke,
}: {
  keys: Loaded<ApiKey[]>;
  onSync: ((key: ApiKey) => void) | undefined;
  onRevoke: (key: ApiKey) => void;
}) {
  const sorted = [...(keys.data ?? [])].sort(
    (a, b) => Number(statusOf(a) !== 'active') - Number(statusOf(b) !== 'active'),
  );
  return (
    <ResourceTable
      caption="API keys"
      what="API keys"
      rows={keys.data && sorted}
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
        { header: 'Status', cell: (k) => <KeyStatus keyOf={k} /> },
        actionsColumn<ApiKey>(
          (k) =>
            statusOf(k) === 'active' && (
              <>
                {onSync && (
                  <button type="button" className="btn subtle" onClick={() => onSync(k)}>
                    flagd sync<span className="visually-hidden"> selectors of {k.name}</span>
                  </button>
                )}
                <button type="button" className="btn subtle danger-text" onClick={() => onRevoke(k)}>
                  Revoke<span className="visually-hidden"> {k.name}</span>
                </button>
              </>
            ),
        ),
      ]}
    />
  );
}

/** Active, revoked or expired; an active key that will expire says when. */
function KeyStatus({ keyOf }: { keyOf: ApiKey }) {
  const status = statusOf(keyOf);
  return (
    <>
      <span className={`badge ${status}`}>{status}</span>
      {keyOf.expiresAt && status === 'active' && (
        <div className="muted small">
          expires <Time at={keyOf.expiresAt} />
        </div>
      )}
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
  const selectors = useApi<SyncSelector[]>(`/api-keys/${enc(keyOf.id)}/flagd-sync?project=${enc(projectId)}`);
  return (
    <OpenedPanel
      id="sync-title"
      title={<>flagd sync selectors of “{keyOf.name}”</>}
      closeLabel="Close"
      onClose={onDone}
    >
      <p className="muted">
        Give one to a flagd in-process provider as its <code>selector</code>. The credential after{' '}
        <code>#</code> can read that environment’s flag definitions over flagd sync and nothing else; revoking
        the key revokes it. The key itself is refused there, since providers copy the selector into every
        result’s metadata.
      </p>
      <ErrorSummary problem={selectors.error} />
      {selectors.data?.map(({ environment, selector }) => (
        <CopyableValue
          key={environment}
          id={`sync-${environment}`}
          label={environment}
          value={selector}
          copyLabel={`Copy the ${environment} selector`}
        />
      ))}
    </OpenedPanel>
  );
}

/** The secret, once: with a copy button and a warning that it will not be shown again. */
function NewSecret({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <OpenedPanel
      id="secret-title"
      title={<>Copy the key “{created.name}” now</>}
      className="panel secret"
      closeLabel="I have stored the key"
      primary
      onClose={onDone}
    >
      <p className="warning">
        <strong>This is the only time the key is shown.</strong> Flagstaff keeps only a hash of it: if it is
        lost, revoke it and create another.
      </p>
      <CopyableValue
        id="new-secret"
        label="The new API key"
        labelHidden
        value={created.secret}
        copyLabel="Copy key"
      />
    </OpenedPanel>
  );
}

function CreateKey({ base, onCreated, onCancel }: CreateFormProps<CreatedApiKey>) {
  const form = useForm({ name: '', expiresAt: '', role: 'evaluator' as Role });
  const { name, expiresAt: expires, role } = form.values;
  const [reach, setReach] = useState<Reach>({ limited: false, chosen: [] });

  const submit = () =>
    form.run(async () =>
      onCreated(
        await api<CreatedApiKey>('POST', base, {
          name,
          role,
          ...(reach.limited ? { environments: reach.chosen } : {}),
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
        <SelectField of={form} name="role" label="Role" hint={ROLE_HELP[role]} choices={KEY_ROLES} />
        <TextField
          of={form}
          name="expiresAt"
          label="Expires (optional)"
          type="date"
          hint="At the end of that day."
        />
      </div>
      <ReachChoice value={reach} onChange={setReach} problem={form.problem} />
    </CreateDialog>
  );
}

/** In a project, whether the key reaches all its environments or only those chosen. */
interface Reach {
  limited: boolean;
  chosen: string[];
}

/** The key's reach, in a project (an organisation key reaches every environment of every one). */
function ReachChoice({ value: { limited, chosen }, onChange, problem }: FormPartProps<Reach>) {
  const scope = useOptionalProject();
  if (!scope) return null;
  return (
    <fieldset className="environments-choice">
      <legend>Environments</legend>
      <RadioChoices
        name="env-scope"
        value={limited}
        choices={[
          [false, 'All environments, including ones created later'],
          [true, 'Only these:'],
        ]}
        onChange={(choice) => onChange({ limited: choice, chosen })}
      />
      {limited && (
        <div className="checkbox-list" id="f-environments">
          <CheckboxChoices
            choices={scope.environments.map((e) => [e.key, e.name])}
            chosen={chosen}
            onChange={(choice) => onChange({ limited, chosen: choice })}
            path="/environments"
          />
        </div>
      )}
      <InlineError problem={problem} path="/environments" />
    </fieldset>
  );
}
