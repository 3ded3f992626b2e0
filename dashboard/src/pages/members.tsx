import { useState } from 'react';
import {
  type Account,
  type ApiError,
  api,
  type CreatedInvitation,
  type CreatedPasswordReset,
  enc,
  type Invitation,
  type Loaded,
  type Page,
  type Project,
  useAll,
  useApi,
  usePage,
} from '../api.ts';
import { confirmThen, OpenButton } from '../kit/dialogs.tsx';
import { ErrorSummary } from '../kit/field.tsx';
import { ListSearch, type QueryFilters } from '../kit/filter-controls.tsx';
import { Pager } from '../kit/pager.tsx';
import { actionsColumn, itemsOf, ResourceTable } from '../kit/resource-table.tsx';
import { searchedPagePath, useUrlSearch } from '../searched-list.ts';
import { useSession } from '../session.ts';
import { CopyButton, Empty, PageTitle, Time, toast } from '../ui.tsx';
import { EditAccountDialog, InviteDialog } from './member-dialogs.tsx';

/** Single sign-on with the claim values that gave the role, a provisioned account not yet signed in, or a password. */
function signsInWith(account: Account) {
  if (account.sso !== null) {
    const mapped = account.sso.roles
      .map((r) => `${r.value} → ${r.role}${r.project === null ? '' : ` of ${r.project}`}`)
      .join(', ');
    return (
      <>
        SSO <span className="muted small">({mapped || 'no mapped group'})</span>
      </>
    );
  }
  return account.externalId === null ? 'Password' : 'SSO (provisioned, not signed in yet)';
}

/** Accounts a page of the list shows. */
const PAGE_SIZE = 100;

/**
 * The people who may sign in, a page at a time with a search of their emails and names, both in
 * the URL (docs/decisions/1846); and the invitations not yet accepted.
 */
export function MembersPage() {
  const { params, search } = useUrlSearch();
  const accounts = usePage<Account>(searchedPagePath('/accounts', params, PAGE_SIZE));
  // Pending invitations are one page: admins make them one at a time and each lapses within 7 days.
  const invitations = useAll<Invitation>('/invitations?limit=1000');
  const projects = useAll<Project>('/projects?limit=1000');
  const [inviting, setInviting] = useState(false);
  const [link, setLink] = useState<OneTimeLinkProps>();
  const [editing, setEditing] = useState<Account>();
  const [problem, setProblem] = useState<ApiError>();
  const scopeName = scopeNames(projects.data ?? []);
  return (
    <>
      <PageTitle actions={<OpenButton label="Invite someone" open={inviting} setOpen={setInviting} />}>
        Members
      </PageTitle>
      {link && <OneTimeLink {...link} onDone={() => setLink(undefined)} />}
      {inviting && (
        <InviteDialog
          projects={projects.data ?? []}
          onInvited={(invitation) => {
            setInviting(false);
            setLink(invitationLink(invitation));
            invitations.reload();
          }}
          onCancel={() => setInviting(false)}
        />
      )}
      {editing && (
        <EditAccountDialog
          account={editing}
          projects={projects.data ?? []}
          onSaved={(saved) => {
            setEditing(undefined);
            toast(`${saved.name} is now ${saved.role} of ${scopeName(saved.projectId).toLowerCase()}.`);
            accounts.reload();
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
      <ErrorSummary problem={problem} />
      <AccountsSection
        accounts={accounts}
        search={search}
        scopeName={scopeName}
        onEdit={setEditing}
        onLink={setLink}
        onProblem={setProblem}
      />
      <InvitationsSection invitations={invitations} scopeName={scopeName} onProblem={setProblem} />
    </>
  );
}

/** A project scope in words: "All projects", or the project's name. */
const scopeNames =
  (projects: readonly Project[]) =>
  (projectId: string | null): string =>
    projectId === null ? 'All projects' : (projects.find((p) => p.id === projectId)?.name ?? projectId);

const invitationLink = (invitation: CreatedInvitation): OneTimeLinkProps => ({
  title: `Send this link to ${invitation.email ?? ''}`,
  label: 'Invitation link',
  validity: 'works once, for 7 days',
  url: `${location.origin}${invitation.path}`,
});

/** What both lists need: the words for a project scope, and where to report what the API refused. */
interface ListProps {
  readonly scopeName: (projectId: string | null) => string;
  readonly onProblem: (problem: ApiError) => void;
}

/** Every account: who, how they sign in, their role and projects, and what an admin may do to it. */
function AccountsSection({
  accounts,
  search,
  scopeName,
  onEdit,
  onLink,
  onProblem,
}: ListProps & {
  accounts: Loaded<Page<Account>>;
  search: QueryFilters<{ readonly q: string }>;
  onEdit: (account: Account) => void;
  onLink: (link: OneTimeLinkProps) => void;
}) {
  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      <ListSearch of={search} what="accounts" placeholder="Email or name" />
      <ResourceTable
        caption="Accounts"
        of={itemsOf(accounts)}
        empty={<Empty title={search.query.q.trim() ? 'No account matches' : 'No accounts'} />}
        columns={[
          { header: 'Name', className: 'strong', cell: (a) => <AccountName account={a} /> },
          { header: 'Email', cell: (a) => a.email },
          { header: 'Signs in with', cell: signsInWith },
          { header: 'Role', cell: (a) => a.role },
          { header: 'Projects', cell: (a) => scopeName(a.projectId) },
          { header: 'Last sign-in', cell: (a) => <Time at={a.lastLoginAt} /> },
          actionsColumn<Account>((a) => (
            <AccountActions
              account={a}
              onEdit={onEdit}
              onLink={onLink}
              onRemoved={accounts.reload}
              onProblem={onProblem}
            />
          )),
        ]}
      />
      <Pager page={accounts.data} what="accounts" />
    </section>
  );
}

/** The account's name, marked when it is the viewer's own or can no longer sign in. */
function AccountName({ account }: { account: Account }) {
  const { me } = useSession();
  return (
    <>
      {account.name} {account.id === me.account?.id && <span className="badge">you</span>}{' '}
      {!account.active && <span className="badge">deactivated</span>}
    </>
  );
}

/** Change role, send a password reset link, remove: each asks first where it cannot be undone. */
function AccountActions({
  account,
  onEdit,
  onLink,
  onRemoved,
  onProblem,
}: {
  account: Account;
  onEdit: (account: Account) => void;
  onLink: (link: OneTimeLinkProps) => void;
  onRemoved: () => void;
  onProblem: (problem: ApiError) => void;
}) {
  const { me } = useSession();
  const self = account.id === me.account?.id;
  const remove = () =>
    confirmThen(
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
        onRemoved();
      },
      onProblem,
    );
  const resetLink = () =>
    confirmThen(
      {
        title: `Create a password reset link for ${account.name}?`,
        body: `Whoever opens it chooses a new password for ${account.email}, and every session of the account ends. An earlier unused link stops working.`,
        confirmLabel: 'Create reset link',
      },
      async () => {
        const reset = await api<CreatedPasswordReset>('POST', `/accounts/${enc(account.id)}/password-reset`);
        onLink({
          title: `Send this link to ${account.email}`,
          label: 'Password reset link',
          validity: 'works once, for 24 hours',
          url: `${location.origin}${reset.path}`,
        });
      },
      onProblem,
    );
  return (
    <>
      <button type="button" className="btn subtle" onClick={() => onEdit(account)}>
        Change role<span className="visually-hidden"> of {account.name}</span>
      </button>
      {/* An account bound to single sign-on has no password to reset (decision 1890). */}
      {account.sso === null && (
        <button type="button" className="btn subtle" onClick={resetLink}>
          Reset password<span className="visually-hidden"> of {account.name}</span>
        </button>
      )}
      <button type="button" className="btn subtle danger-text" onClick={remove}>
        Remove<span className="visually-hidden"> {account.name}</span>
      </button>
    </>
  );
}

/** Invitations not yet accepted, each of which an admin may withdraw. */
function InvitationsSection({
  invitations,
  scopeName,
  onProblem,
}: ListProps & { invitations: Loaded<Invitation[]> }) {
  const withdraw = (invitation: Invitation) =>
    confirmThen(
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
      onProblem,
    );
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Pending invitations</h2>
      <ResourceTable
        caption="Pending invitations"
        what="invitations"
        of={invitations}
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
  );
}

interface OneTimeLinkProps {
  readonly title: string;
  readonly label: string;
  /** How long and how often it works, e.g. "works once, for 7 days". */
  readonly validity: string;
  readonly url: string;
}

/** A link with a one-time token, shown to the admin once to pass on (no email is sent). */
function OneTimeLink({ title, label, validity, url, onDone }: OneTimeLinkProps & { onDone: () => void }) {
  return (
    <section className="panel secret" aria-labelledby="one-time-link">
      <h2 id="one-time-link">{title}</h2>
      <p className="warning">
        <strong>It is shown only now</strong> and {validity}. Send it privately.
      </p>
      <div className="secret-row">
        <label htmlFor="one-time-link-url" className="visually-hidden">
          {label}
        </label>
        <input
          id="one-time-link-url"
          readOnly
          value={url}
          className="mono"
          onFocus={(e) => e.target.select()}
        />
        <CopyButton text={url} label="Copy link" />
      </div>
      <button type="button" className="btn" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
