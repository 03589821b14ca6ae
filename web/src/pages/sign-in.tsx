import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { Session } from '../app.tsx';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
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
      <form onSubmit={submit} class="card">
        <h1>Switchyard</h1>
        <p>Sign in with a management key (your account) or an admin key (the operator).</p>
        <label for="key">Key</label>
        <input id="key" name="key" type="password" autocomplete="off" placeholder="sk-sy-v1-…" required
          value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
        {error !== '' && <p class="error sign-in-error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
        <p class="hint">
          The API key the first start made calls models; it does not sign in here. The gateway's first start also
          printed the command that makes a management key; on the gateway's machine, in its folder:{' '}
          <code>npx switchyard keys create --account &lt;id&gt; --name dashboard --management</code>{' '}
          (<code>npx switchyard accounts list</code> shows the ids).
        </p>
      </form>
    </main>
  );
}
