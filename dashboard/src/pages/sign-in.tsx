import { useEffect, useState } from 'react';
import {
  type Account,
  ApiError,
  api,
  type InvitationPreview,
  type Me,
  type ResetPreview,
  type SignInOptions,
} from '../api.ts';
import { SubmitForm } from '../kit/api-form.tsx';
import { useForm } from '../kit/dialogs.tsx';
import { EmailField, NewPasswordField, PasswordField, TextField } from '../kit/field.tsx';
import { navigate } from '../router.tsx';
import { Loading } from '../ui.tsx';

function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="brand">
          <img src="/favicon.svg" alt="" width="28" height="28" /> Flagstaff
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** Sends a form whose answer sets the session cookie, then hands on who is now signed in. */
async function signInBy(send: () => Promise<unknown>, onSignedIn: (me: Me) => void): Promise<void> {
  await send();
  onSignedIn(await api<Me>('GET', '/me'));
}

export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const form = useForm({ email: '', password: '' });
  const [options, setOptions] = useState<SignInOptions>();

  useEffect(() => {
    // Unreadable options leave the password form, which answers for itself.
    api<SignInOptions>('GET', '/auth/options').then(setOptions, () =>
      setOptions({ passwordSignIn: true, sso: null }),
    );
  }, []);

  const submit = () =>
    form.run(() =>
      signInBy(() => api<{ account: Account }>('POST', '/auth/sign-in', form.values), onSignedIn),
    );

  if (options === undefined) return <Loading />;
  // Back to the page the person asked for once the identity provider has signed them in.
  const returnTo = encodeURIComponent(location.pathname + location.search);
  return (
    <AuthFrame title="Sign in">
      {options.sso && (
        <a className="btn primary wide" href={`${options.sso.loginPath}?returnTo=${returnTo}`}>
          Sign in with {options.sso.label}
        </a>
      )}
      {options.sso && options.passwordSignIn && <p className="muted small center">or with your password</p>}
      {options.passwordSignIn && (
        <SubmitForm form={form} onSubmit={submit} submitLabel="Sign in" busyLabel="Signing in…" wide>
          <EmailField of={form} required />
          <PasswordField of={form} name="password" label="Password" autoComplete="current-password" />
        </SubmitForm>
      )}
      <p className="muted small">
        {options.passwordSignIn
          ? 'No account? Ask an admin of your Flagstaff for an invitation.'
          : 'No access? Ask an admin of your organisation.'}
      </p>
    </AuthFrame>
  );
}

/**
 * What a one-time link offers: its token travels in the address's fragment (so it reaches no
 * server log), and `previewPath` answers what it offers, or why it cannot be used.
 */
function useOneTimeLink<T>(previewPath: string, missing: string) {
  const token = location.hash.slice(1);
  const [preview, setPreview] = useState<T>();
  const [linkError, setLinkError] = useState<ApiError>();
  useEffect(() => {
    if (!token) {
      setLinkError(new ApiError(404, { detail: missing }));
      return;
    }
    api<T>('POST', previewPath, { token }).then(setPreview, setLinkError);
  }, [token, previewPath, missing]);
  return { token, preview, linkError };
}

/** A link page's form: it signs the person in, and the app continues at its start. */
function useLinkForm<T>(initial: T, onSignedIn: (me: Me) => void) {
  const form = useForm(initial);
  const send = (request: () => Promise<unknown>) =>
    form.run(async () => {
      await signInBy(request, onSignedIn);
      void navigate('/', { replace: true });
    });
  return { form, send };
}

/** A link page: why its link cannot be used, a wait while it is read, or its form. */
function LinkPage<T>({
  title,
  what,
  link,
  children,
}: {
  title: string;
  what: string;
  link: { preview: T | undefined; linkError: ApiError | undefined };
  children: (preview: T) => React.ReactNode;
}) {
  return (
    <AuthFrame title={title}>
      {link.linkError ? (
        <>
          <div className="error-summary" role="alert">
            <p>{link.linkError.message}</p>
          </div>
          <p>
            <a href="/sign-in">Go to sign-in</a>
          </p>
        </>
      ) : link.preview === undefined ? (
        <Loading what={what} />
      ) : (
        children(link.preview)
      )}
    </AuthFrame>
  );
}

/** Accepting an invitation, or the first-start setup link. */
export function JoinPage({ setup, onJoined }: { setup: boolean; onJoined: (me: Me) => void }) {
  const link = useOneTimeLink<InvitationPreview>(
    '/auth/invitation',
    'This link has no invitation in it. Open the whole link.',
  );
  const { form, send } = useLinkForm({ email: '', name: '', password: '' }, onJoined);
  const join = () =>
    send(() => {
      const { email, name, password } = form.values;
      return api('POST', '/auth/join', {
        token: link.token,
        name,
        password,
        ...(link.preview?.email ? {} : { email }),
      });
    });

  return (
    <LinkPage title={setup ? 'Set up Flagstaff' : 'Join Flagstaff'} what="invitation" link={link}>
      {(preview) => (
        <>
          <p>
            {setup ? 'Create the first admin account. ' : ''}You will be{' '}
            {preview.role === 'admin' || preview.role === 'editor' ? 'an' : 'a'}{' '}
            <strong>{preview.role}</strong>{' '}
            {preview.project ? (
              <>
                of the project <strong>{preview.project.name}</strong>
              </>
            ) : (
              'of every project'
            )}
            .
          </p>
          <SubmitForm
            form={form}
            onSubmit={join}
            submitLabel="Create account"
            busyLabel="Creating your account…"
            wide
          >
            {preview.email ? (
              <p>
                Email: <strong>{preview.email}</strong>
              </p>
            ) : (
              <EmailField of={form} />
            )}
            <TextField of={form} name="name" label="Your name" autoComplete="name" />
            <NewPasswordField of={form} name="password" label="Password" />
          </SubmitForm>
        </>
      )}
    </LinkPage>
  );
}

/** Using a one-time password reset link an admin created. */
export function ResetPasswordPage({ onReset }: { onReset: (me: Me) => void }) {
  const link = useOneTimeLink<ResetPreview>(
    '/auth/password-reset',
    'This link has no reset token in it. Open the whole link.',
  );
  const { form, send } = useLinkForm({ password: '' }, onReset);
  const reset = () =>
    send(() => api('POST', '/auth/reset-password', { token: link.token, password: form.values.password }));

  return (
    <LinkPage title="Choose a new password" what="reset link" link={link}>
      {(preview) => (
        <>
          <p>
            For <strong>{preview.email}</strong>. Every browser signed in to this account is signed out.
          </p>
          <SubmitForm
            form={form}
            onSubmit={reset}
            submitLabel="Set password and sign in"
            busyLabel="Setting your password…"
            wide
          >
            <NewPasswordField of={form} name="password" label="New password" />
          </SubmitForm>
        </>
      )}
    </LinkPage>
  );
}
