import { type FormEvent, useState } from 'react';
import { ROLES } from '../../../src/domain/api-key.ts';
import {
  type Account,
  type ApiError,
  api,
  enc,
  type Invitation,
  type Project,
  type Role,
  useApi,
} from '../api.ts';
import { useSession } from '../session.ts';
import {
  CopyButton,
  confirm,
  Empty,
  ErrorSummary,
  Field,
  LoadError,
  Loading,
  PageTitle,
  ROLE_HELP,
  Time,
  toast,
  useFocusFirstField,
} from '../ui.tsx';

/** The people who may sign in, and the invitations not yet accepted. */
export function MembersPage() {
  const { me } = useSession();
  const accounts = useApi<Account[]>('/accounts?limit=1000');
  const invitations = useApi<Invitation[]>('/invitations?limit=1000');
  const projects = useApi<Project[]>('/projects?limit=1000');
  const [inviting, setInviting] = useState(false);
  const [link, setLink] = useState<{ email: string; url: string }>();
  const [problem, setProblem] = useState<ApiError>();
  const scopeName = (projectId: string | null) =>
    projectId === null ? 'All projects' : (projects.data?.find((p) => p.id === projectId)?.name ?? projectId);

  const remove = async (account: Account) => {
    const self = account.id === me.account?.id;
    const ok = await confirm({
      title: self ? 'Remove your own account?' : `Remove ${account.name}?`,
      body: self
        ? 'You will be signed out and cannot sign in again.'
        : `${account.email} is signed out everywhere and can no longer sign in. API keys they created keep working.`,
      confirmLabel: 'Remove account',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('DELETE', `/accounts/${enc(account.id)}`);
      toast(`${account.name} removed.`);
      accounts.reload();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  const withdraw = async (invitation: Invitation) => {
    const ok = await confirm({
      title: `Withdraw the invitation for ${invitation.email}?`,
      body: 'The link stops working.',
      confirmLabel: 'Withdraw invitation',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('DELETE', `/invitations/${enc(invitation.id)}`);
      toast('Invitation withdrawn.');
      invitations.reload();
    } catch (e) {
      setProblem(e as ApiError);
    }
  };

  return (
    <>
      <PageTitle
        actions={
          !inviting && (
            <button type="button" className="btn primary" onClick={() => setInviting(true)}>
              Invite someone
            </button>
          )
        }
      >
        Members
      </PageTitle>
      {link && (
        <section className="panel secret" aria-labelledby="invite-link">
          <h2 id="invite-link">Send this link to {link.email}</h2>
          <p className="warning">
            <strong>It is shown only now</strong> and works once, for 7 days. Send it privately.
          </p>
          <div className="secret-row">
            <label htmlFor="invitation-link" className="visually-hidden">
              Invitation link
            </label>
            <input
              id="invitation-link"
              readOnly
              value={link.url}
              className="mono"
              onFocus={(e) => e.target.select()}
            />
            <CopyButton text={link.url} label="Copy link" />
          </div>
          <button type="button" className="btn" onClick={() => setLink(undefined)}>
            Done
          </button>
        </section>
      )}
      {inviting && (
        <InviteForm
          projects={projects.data ?? []}
          onInvited={(invitation) => {
            setInviting(false);
            setLink({ email: invitation.email ?? '', url: `${location.origin}${invitation.path}` });
            invitations.reload();
          }}
          onCancel={() => setInviting(false)}
        />
      )}
      <ErrorSummary problem={problem} />
      <section aria-labelledby="accounts-title">
        <h2 id="accounts-title">Accounts</h2>
        {accounts.error && <LoadError error={accounts.error} retry={accounts.reload} />}
        {accounts.loading && <Loading what="accounts" />}
        {accounts.data && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Projects</th>
                  <th scope="col">Last sign-in</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.map((a) => (
                  <tr key={a.id}>
                    <td className="strong">
                      {a.name} {a.id === me.account?.id && <span className="badge">you</span>}
                    </td>
                    <td>{a.email}</td>
                    <td>{a.role}</td>
                    <td>{scopeName(a.projectId)}</td>
                    <td>
                      <Time at={a.lastLoginAt} />
                    </td>
                    <td className="row-actions">
                      <button type="button" className="btn subtle danger-text" onClick={() => remove(a)}>
                        Remove<span className="visually-hidden"> {a.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">Pending invitations</h2>
        {invitations.error && <LoadError error={invitations.error} retry={invitations.reload} />}
        {invitations.data?.length === 0 && <Empty title="No pending invitations" />}
        {invitations.data && invitations.data.length > 0 && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Projects</th>
                  <th scope="col">Invited by</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {invitations.data.map((i) => (
                  <tr key={i.id}>
                    <td>{i.email ?? <span className="muted">chosen on setup</span>}</td>
                    <td>{i.role}</td>
                    <td>{scopeName(i.projectId)}</td>
                    <td>{i.invitedBy.name}</td>
                    <td>
                      <Time at={i.expiresAt} />
                    </td>
                    <td className="row-actions">
                      <button type="button" className="btn subtle danger-text" onClick={() => withdraw(i)}>
                        Withdraw<span className="visually-hidden"> the invitation for {i.email}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function InviteForm({
  projects,
  onInvited,
  onCancel,
}: {
  projects: readonly Project[];
  onInvited: (invitation: Invitation & { path: string }) => void;
  onCancel: () => void;
}) {
  const focusRef = useFocusFirstField<HTMLFormElement>();
  const { me } = useSession();
  const organisation = me.actor.projectId === null;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [project, setProject] = useState(organisation ? '' : (me.actor.projectId ?? ''));
  const [problem, setProblem] = useState<ApiError>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      onInvited(
        await api<Invitation & { path: string }>('POST', '/invitations', {
          email,
          role,
          project: project || null,
        }),
      );
    } catch (e) {
      setProblem(e as ApiError);
    }
  };
  return (
    <form ref={focusRef} className="panel" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <ErrorSummary problem={problem} />
      <div className="row">
        <Field label="Email" path="/email" problem={problem}>
          {(props) => (
            <input {...props} type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
          )}
        </Field>
        <Field label="Role" path="/role" problem={problem} hint={ROLE_HELP[role]}>
          {(props) => (
            <select {...props} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.filter((r) => r !== 'evaluator').map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Projects" path="/project" problem={problem}>
          {(props) => (
            <select
              {...props}
              value={project}
              onChange={(e) => setProject(e.target.value)}
              disabled={!organisation}
            >
              {organisation && <option value="">All projects</option>}
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  Only {p.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn primary">
          Create invitation link
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
