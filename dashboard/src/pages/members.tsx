import { useState } from 'react';
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
import { CreateDialog, confirmThen, OpenButton, useSubmission } from '../kit/dialogs.tsx';
import { ErrorSummary, Field } from '../kit/field.tsx';
import { actionsColumn, ResourceTable } from '../kit/resource-table.tsx';
import { useSession } from '../session.ts';
import { CopyButton, Empty, PageTitle, ROLE_HELP, Time, toast } from '../ui.tsx';

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
    await confirmThen(
      {
        title: self ? 'Remove your own account?' : `Remove ${account.name}?`,
        body: self
          ? 'You will be signed out and cannot sign in again.'
          : `${account.email} is signed out everywhere and can no longer sign in. API keys they created keep working.`,
        confirmLabel: 'Remove account',
        danger: true,
      },
      async () => {
        await api('DELETE', `/accounts/${enc(account.id)}`);
        toast(`${account.name} removed.`);
        accounts.reload();
      },
      setProblem,
    );
  };

  const withdraw = async (invitation: Invitation) => {
    await confirmThen(
      {
        title: `Withdraw the invitation for ${invitation.email}?`,
        body: 'The link stops working.',
        confirmLabel: 'Withdraw invitation',
        danger: true,
      },
      async () => {
        await api('DELETE', `/invitations/${enc(invitation.id)}`);
        toast('Invitation withdrawn.');
        invitations.reload();
      },
      setProblem,
    );
  };

  return (
    <>
      <PageTitle actions={<OpenButton label="Invite someone" open={inviting} setOpen={setInviting} />}>
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
        <ResourceTable
          caption="Accounts"
          of={accounts}
          rowKey={(a) => a.id}
          empty={<Empty title="No accounts" />}
          columns={[
            {
              header: 'Name',
              className: 'strong',
              cell: (a) => (
                <>
                  {a.name} {a.id === me.account?.id && <span className="badge">you</span>}
                </>
              ),
            },
            { header: 'Email', cell: (a) => a.email },
            { header: 'Role', cell: (a) => a.role },
            { header: 'Projects', cell: (a) => scopeName(a.projectId) },
            { header: 'Last sign-in', cell: (a) => <Time at={a.lastLoginAt} /> },
            actionsColumn<Account>((a) => (
              <button type="button" className="btn subtle danger-text" onClick={() => remove(a)}>
                Remove<span className="visually-hidden"> {a.name}</span>
              </button>
            )),
          ]}
        />
      </section>
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">Pending invitations</h2>
        <ResourceTable
          caption="Pending invitations"
          what="invitations"
          of={invitations}
          rowKey={(i) => i.id}
          empty={<Empty title="No pending invitations" />}
          columns={[
            { header: 'Email', cell: (i) => i.email ?? <span className="muted">chosen on setup</span> },
            { header: 'Role', cell: (i) => i.role },
            { header: 'Projects', cell: (i) => scopeName(i.projectId) },
            { header: 'Invited by', cell: (i) => i.invitedBy.name },
            { header: 'Expires', cell: (i) => <Time at={i.expiresAt} /> },
            actionsColumn<Invitation>((i) => (
              <button type="button" className="btn subtle danger-text" onClick={() => withdraw(i)}>
                Withdraw<span className="visually-hidden"> the invitation for {i.email}</span>
              </button>
            )),
          ]}
        />
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
  const { me } = useSession();
  const organisation = me.actor.projectId === null;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [project, setProject] = useState(organisation ? '' : (me.actor.projectId ?? ''));
  const { problem, busy, run } = useSubmission();
  const submit = () =>
    run(async () =>
      onInvited(
        await api<Invitation & { path: string }>('POST', '/invitations', {
          email,
          role,
          project: project || null,
        }),
      ),
    );
  return (
    <CreateDialog
      what="invitation"
      title="Invite someone"
      submitLabel="Create invitation link"
      form={{ problem, busy }}
      onSubmit={submit}
      onCancel={onCancel}
      wide
    >
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
    </CreateDialog>
  );
}
