import { api } from '../api.ts';
import { SubmitForm } from '../kit/api-form.tsx';
import { useForm } from '../kit/dialogs.tsx';
import { NewPasswordField, PasswordField } from '../kit/field.tsx';
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
  const form = useForm({ currentPassword: '', newPassword: '' });
  const submit = () =>
    form.run(async () => {
      await api('POST', '/me/password', form.values);
      form.set('currentPassword', '');
      form.set('newPassword', '');
      toast('Password changed. You stay signed in here; your other sessions have ended.');
    });
  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <SubmitForm form={form} onSubmit={submit} submitLabel="Change password" busyLabel="Changing…">
        <PasswordField
          of={form}
          name="currentPassword"
          label="Current password"
          autoComplete="current-password"
        />
        <NewPasswordField
          of={form}
          name="newPassword"
          label="New password"
          hint="At least 12 characters. Your other signed-in browsers are signed out."
        />
      </SubmitForm>
    </section>
  );
}
