import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { Session } from '../app.tsx';
import { asyncHandler } from '../async-handler.ts';

/** The token of an emailed sign-in link (`#sign-in-link=...`), taken out of the address bar. */
function linkToken(): string | null {
  const m = /^#sign-in-link=([A-Za-z0-9_-]{43})$/.exec(location.hash);
  if (m === null) return null;
  history.replaceState(null, '', location.pathname);
  return m[1]!;
}

/** Single sign-on, when the gateway has `oidc:`: the provider's name and where its sign-in starts. */
export interface SingleSignOn {
  name: string;
  url: string;
}

export function SignIn({
  onSignedIn,
  emailSignIn,
  sso,
}: {
  onSignedIn: (s: Session) => void;
  emailSignIn: boolean;
  sso: SingleSignOn | null;
}) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [email, setEmail] = useState('');
  const [mailed, setMailed] = useState(false);
  // An emailed link opened the page: its token signs in (once).
  useEffect(() => {
    const token = linkToken();
    if (token === null) return;
    setBusy(true);
    api<Session>('POST', '/sessions/email/redeem', { token })
      .then(onSignedIn)
      .catch((err) => setError(err instanceof ApiError ? err.message : 'The gateway could not be reached.'))
      .finally(() => setBusy(false));
  }, []);
  const askLink = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await api('POST', '/sessions/email', { email });
      setMailed(true);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The gateway could not be reached.');
    }
  };
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const s = await api<Session>('POST', '/dashboard/session', { key });
      setKey('');
      onSignedIn(s);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The gateway could not be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      {sso !== null && (
        <section class="card" aria-label="Single sign-on">
          <h1>Switchyard</h1>
          <p>Members: sign in through your organization's identity provider.</p>
          <a class="button sso" href={sso.url}>
            Sign in with {sso.name}
          </a>
        </section>
      )}
      <form onSubmit={asyncHandler(submit)} class="card">
        {sso === null && <h1>Switchyard</h1>}
        <p>Sign in with a management key (your account) or an admin key (the operator).</p>
        <label for="key">Key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="off"
          placeholder="sk-sy-v1-…"
          required
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        {error !== '' && (
          <p class="error sign-in-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">
          The API key the first start made calls models; it does not sign in here. The gateway's first start also printed the command that
          makes a management key; on the gateway's machine, in its folder:{' '}
          <code>npx switchyard keys create --account &lt;id&gt; --name dashboard --management</code> (
          <code>npx switchyard accounts list</code> shows the ids).
        </p>
      </form>
      {emailSignIn && (
        <form onSubmit={asyncHandler(askLink)} class="card" aria-label="Sign in by email">
          <p>Members: get a one-time sign-in link by email.</p>
          <label for="email">Email</label>
          <input id="email" type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          <button type="submit">Email me a link</button>
          {mailed && <p role="status">If this address is a member, a link is on its way (it works once, for a few minutes).</p>}
        </form>
      )}
    </main>
  );
}
