import { useState } from 'react';
import { api } from '../api.ts';
import { useSubmission } from '../kit/dialogs.tsx';
import { ErrorSummary, NewPasswordField, PasswordField, SubmitButton } from '../kit/field.tsx';
import { useSession } from '../session.ts';
import { PageTitle, Time, toast } from '../ui.tsx';

/** The signed-in person's own account: who they are, and their password. */
export function YourAccountPage() {
  const { me } = useSession();
  const account = me.account;
  if (!account)
    return (
      <>
        <PageTitle>Your account</PageTitle>
        <p>This dashboard is signed in with an API key, which has no account or password.</p>
      </>
    );
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{account.name}</dd>
        <dt>Email</dt>
        <dd>{account.email}</dd>
        <dt>Role</dt>
        <dd>{account.role}</dd>
        <dt>Member since</dt>
        <dd>
          <Time at={account.createdAt} />
        </dd>
      </dl>
      <ChangePasswordForm />
    </>
  );
}

function ChangePasswordForm() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const { problem, busy, run } = useSubmission();
  const submit = () =>
    run(async () => {
      await api('POST', '/me/password', { currentPassword, newPassword });
      setCurrentPassword('');
      setNewPassword('');
      toast('Password changed. You stay signed in here; your other sessions have ended.');
    });
  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <ErrorSummary problem={problem} />
        <PasswordField
          label="Current password"
          path="/currentPassword"
          problem={problem}
          value={currentPassword}
          onChange={setCurrentPassword}
          autoComplete="current-password"
        />
        <NewPasswordField
          label="New password"
          path="/newPassword"
          problem={problem}
          hint="At least 12 characters. Your other signed-in browsers are signed out."
          value={newPassword}
          onChange={setNewPassword}
        />
        <SubmitButton busy={busy} busyLabel="Changing…">
          Change password
        </SubmitButton>
      </form>
    </section>
  );
}
