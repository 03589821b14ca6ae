import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { useApi } from '../use-api.ts';
import { asyncHandler } from '../async-handler.ts';

interface ByokKey {
  provider: string;
  label: string | null;
  last_four: string;
  mode: 'prefer' | 'only';
  created_at: string;
  last_failure_at: string | null;
  last_failure: string | null;
}

/**
 * The Settings page's "Your own provider keys" section (docs/byok.md): the account's keys by
 * provider, label and last four characters (never the key), a form to store one (the
 * gateway checks it at the provider first) and a button to remove one.
 */
export function ByokSettings() {
  const keys = useApi<{ data: ByokKey[] }>('/byok');
  const [provider, setProvider] = useState('');
  const [key, setKey] = useState('');
  const [mode, setMode] = useState<'prefer' | 'only'>('prefer');
  const [label, setLabel] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const store = async (e: Event): Promise<void> => {
    e.preventDefault();
    setMessage(null);
    setBusy(true);
    try {
      const trimmed = key.trim();
      const body = {
        key: trimmed.startsWith('{') ? (JSON.parse(trimmed) as unknown) : trimmed,
        mode,
        ...(label.trim() === '' ? {} : { label: label.trim() }),
      };
      const out = await api<{ data: ByokKey }>('PUT', `/byok/${encodeURIComponent(provider.trim())}`, body);
      setKey('');
      setMessage({ ok: true, text: `Stored: ${out.data.provider}, key …${out.data.last_four}, mode ${out.data.mode}.` });
      keys.reload();
    } catch (err) {
      setMessage({
        ok: false,
        text:
          err instanceof ApiError ? err.message : err instanceof SyntaxError ? 'The key looks like JSON but does not parse.' : String(err),
      });
    } finally {
      setBusy(false);
    }
  };
  const remove = async (p: string): Promise<void> => {
    setMessage(null);
    try {
      await api('DELETE', `/byok/${encodeURIComponent(p)}`);
      setMessage({ ok: true, text: `Removed the key for ${p}.` });
      keys.reload();
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : String(err) });
    }
  };

  return (
    <section class="card byok" aria-label="Your own provider keys">
      <h2>Your own provider keys</h2>
      <p class="hint">
        Requests to a provider you store a key for carry your key and are charged only the gateway's BYOK fee. The key is encrypted and
        never shown again.
      </p>
      {keys.error !== undefined ? (
        <p class="error" role="alert">
          {keys.error}
        </p>
      ) : (
        <table aria-label="Stored provider keys">
          <thead>
            <tr>
              <th>Provider</th>
              <th>Label</th>
              <th>Key</th>
              <th>Mode</th>
              <th>Stored</th>
              <th>Last failure</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(keys.data?.data ?? []).map((k) => (
              <tr key={k.provider}>
                <td>{k.provider}</td>
                <td>{k.label ?? ''}</td>
                <td>
                  <code>…{k.last_four}</code>
                </td>
                <td>{k.mode}</td>
                <td>{k.created_at.slice(0, 10)}</td>
                <td>{k.last_failure_at === null ? '' : `${k.last_failure_at.slice(0, 16)} (${k.last_failure ?? ''})`}</td>
                <td>
                  <button type="button" onClick={() => void remove(k.provider)} aria-label={`Remove the key for ${k.provider}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
            {keys.data !== undefined && keys.data.data.length === 0 && (
              <tr>
                <td colSpan={7} class="hint">
                  No keys of your own.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      {keys.error === undefined && (
        <form onSubmit={asyncHandler(store)} aria-label="Store a provider key">
          <label for="byok-provider">Provider id</label>
          <input
            id="byok-provider"
            required
            maxLength={100}
            value={provider}
            onInput={(e) => setProvider((e.target as HTMLInputElement).value)}
          />
          <label for="byok-key">Key (for Bedrock or Vertex, the key pair or service account JSON)</label>
          <textarea
            id="byok-key"
            required
            rows={2}
            autoComplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey((e.target as HTMLTextAreaElement).value)}
          />
          <label for="byok-mode">Mode</label>
          <select id="byok-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as 'prefer' | 'only')}>
            <option value="prefer">prefer: my key first, the gateway's as fallback</option>
            <option value="only">only: never the gateway's key</option>
          </select>
          <label for="byok-label">Label (optional)</label>
          <input id="byok-label" maxLength={100} value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Store key'}
          </button>
        </form>
      )}
      {message !== null && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </section>
  );
}
