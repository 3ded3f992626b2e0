import { type FormEvent, useEffect, useState } from 'react';
import { type Account, ApiError, api, type Me } from '../api.ts';
import { ErrorSummary, Field } from '../kit/field.tsx';
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

/** A one-time link that cannot be used (unknown, used, expired), with the way to sign in. */
function LinkProblem({ title, error }: { title: string; error: ApiError }) {
  return (
    <AuthFrame title={title}>
      <div className="error-summary" role="alert">
        <p>{error.message}</p>
      </div>
      <p>
        <a href="/sign-in">Go to sign-in</a>
      </p>
    </AuthFrame>
  );
}

export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      await api<{ account: Account }>('POST', '/auth/sign-in', { email, password });
      onSignedIn(await api<Me>('GET', '/me'));
    } catch (error) {
      setProblem(error as ApiError);
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Sign in">
      <form onSubmit={submit} noValidate>
        <ErrorSummary problem={problem} />
        <Field label="Email" path="/email" problem={problem}>
          {(props) => (
            <input
              {...props}
              type="email"
              autoComplete="username"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              required
            />
          )}
        </Field>
        <Field label="Password" path="/password" problem={problem}>
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
          )}
        </Field>
        <button type="submit" className="btn primary wide" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted small">No account? Ask an admin of your Flagstaff for an invitation.</p>
    </AuthFrame>
  );
}

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
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!token) {
      setLinkError(new ApiError(404, { detail: 'This link has no invitation in it. Open the whole link.' }));
      return;
    }
    api<Preview>('POST', '/auth/invitation', { token }).then(setPreview, setLinkError);
  }, [token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      await api('POST', '/auth/join', {
        token,
        name,
        password,
        ...(preview?.email ? {} : { email }),
      });
      const me = await api<Me>('GET', '/me');
      onJoined(me);
      void navigate('/', { replace: true });
    } catch (error) {
      setProblem(error as ApiError);
      setBusy(false);
    }
  };

  const title = setup ? 'Set up Flagstaff' : 'Join Flagstaff';
  if (linkError) return <LinkProblem title={title} error={linkError} />;
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
        <ErrorSummary problem={problem} />
        {preview.email ? (
          <p>
            Email: <strong>{preview.email}</strong>
          </p>
        ) : (
          <Field label="Email" path="/email" problem={problem}>
            {(props) => (
              <input
                {...props}
                type="email"
                autoComplete="username"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </Field>
        )}
        <Field label="Your name" path="/name" problem={problem}>
          {(props) => (
            <input {...props} autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
          )}
        </Field>
        <Field label="Password" path="/password" problem={problem} hint="At least 12 characters.">
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="btn primary wide" disabled={busy}>
          {busy ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
    </AuthFrame>
  );
}

interface ResetPreview {
  email: string;
  name: string;
}

/** Using a one-time password reset link an admin created: the token is in the address's fragment. */
export function ResetPasswordPage({ onReset }: { onReset: (me: Me) => void }) {
  const token = location.hash.slice(1);
  const [preview, setPreview] = useState<ResetPreview>();
  const [linkError, setLinkError] = useState<ApiError>();
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<ApiError>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!token) {
      setLinkError(new ApiError(404, { detail: 'This link has no reset token in it. Open the whole link.' }));
      return;
    }
    api<ResetPreview>('POST', '/auth/password-reset', { token }).then(setPreview, setLinkError);
  }, [token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      await api('POST', '/auth/reset-password', { token, password });
      onReset(await api<Me>('GET', '/me'));
      void navigate('/', { replace: true });
    } catch (error) {
      setProblem(error as ApiError);
      setBusy(false);
    }
  };

  const title = 'Choose a new password';
  if (linkError) return <LinkProblem title={title} error={linkError} />;
  if (!preview)
    return (
      <AuthFrame title={title}>
        <Loading what="reset link" />
      </AuthFrame>
    );
  return (
    <AuthFrame title={title}>
      <p>
        For <strong>{preview.email}</strong>. Every browser signed in to this account is signed out.
      </p>
      <form onSubmit={submit} noValidate>
        <ErrorSummary problem={problem} />
        <Field label="New password" path="/password" problem={problem} hint="At least 12 characters.">
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="btn primary wide" disabled={busy}>
          {busy ? 'Setting your password…' : 'Set password and sign in'}
        </button>
      </form>
    </AuthFrame>
  );
}
