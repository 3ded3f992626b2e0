import { type FormEvent, useEffect, useState } from 'react';
import { type Account, ApiError, api, type Me } from '../api.ts';
import { useForm } from '../kit/dialogs.tsx';
import { ErrorSummary, TextField } from '../kit/field.tsx';
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

export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const form = useForm({ email: '', password: '' });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void form.run(async () => {
      await api<{ account: Account }>('POST', '/auth/sign-in', form.values);
      onSignedIn(await api<Me>('GET', '/me'));
    });
  };

  return (
    <AuthFrame title="Sign in">
      <form onSubmit={submit} noValidate>
        <ErrorSummary problem={form.problem} />
        <TextField of={form} name="email" label="Email" type="email" autoComplete="username" required />
        <TextField
          of={form}
          name="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          required
        />
        <button type="submit" className="btn primary wide" disabled={form.busy}>
          {form.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted small">No account? Ask an admin of your Flagstaff for an invitation.</p>
    </AuthFrame>
  );
}

const PASSWORD_HINT = 'At least 12 characters.';

interface Preview {
  email: string | null;
  role: string;
  project: { key: string; name: string } | null;
}

/** Accepting an invitation, or the first-start setup link: the token is in the address's fragment. */
export function JoinPage({ setup, onJoined }: { setup: boolean; onJoined: (me: Me) => void }) {
  const token = location.hash.slice(1);
  const [preview, setPreview] = useState<Preview>();
  const [linkError, setLinkError] = useState<ApiError>();
  const form = useForm({ email: '', name: '', password: '' });
  const { email, name, password } = form.values;

  useEffect(() => {
    if (!token) {
      setLinkError(new ApiError(404, { detail: 'This link has no invitation in it. Open the whole link.' }));
      return;
    }
    api<Preview>('POST', '/auth/invitation', { token }).then(setPreview, setLinkError);
  }, [token]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void form.run(async () => {
      await api('POST', '/auth/join', {
        token,
        name,
        password,
        ...(preview?.email ? {} : { email }),
      });
      const me = await api<Me>('GET', '/me');
      onJoined(me);
      void navigate('/', { replace: true });
    });
  };

  const title = setup ? 'Set up Flagstaff' : 'Join Flagstaff';
  if (linkError)
    return (
      <AuthFrame title={title}>
        <div className="error-summary" role="alert">
          <p>{linkError.message}</p>
        </div>
        <p>
          <a href="/sign-in">Go to sign-in</a>
        </p>
      </AuthFrame>
    );
  if (!preview)
    return (
      <AuthFrame title={title}>
        <Loading what="invitation" />
      </AuthFrame>
    );
  return (
    <AuthFrame title={title}>
      <p>
        {setup ? 'Create the first admin account. ' : ''}You will be{' '}
        {preview.role === 'admin' || preview.role === 'editor' ? 'an' : 'a'} <strong>{preview.role}</strong>{' '}
        {preview.project ? (
          <>
            of the project <strong>{preview.project.name}</strong>
          </>
        ) : (
          'of every project'
        )}
        .
      </p>
      <form onSubmit={submit} noValidate>
        <ErrorSummary problem={form.problem} />
        {preview.email ? (
          <p>
            Email: <strong>{preview.email}</strong>
          </p>
        ) : (
          <TextField of={form} name="email" label="Email" type="email" autoComplete="username" />
        )}
        <TextField of={form} name="name" label="Your name" autoComplete="name" />
        <TextField
          of={form}
          name="password"
          label="Password"
          type="password"
          autoComplete="new-password"
          hint={PASSWORD_HINT}
        />
        <button type="submit" className="btn primary wide" disabled={form.busy}>
          {form.busy ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
    </AuthFrame>
  );
}
