import { useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api.ts';
import { CopyButton, Loadable, Table } from '../components.tsx';
import { cost, time, usd } from '../format.ts';
import { useApi } from '../use-api.ts';

interface Key { hash: string; name: string; label: string; disabled: boolean; limit: number | null; usage: number; usage_daily: number; usage_monthly: number; expires_at: string | null; created_at: string; last_used: string | null }
interface KeyUsage { group: string | null; requests: number; cost_usd: string }

/** A USD number from the keys API (OpenRouter's shape), shown with 2 decimals; exact figures come from /usage. */
function dollars(n: number | null): string {
  return n === null ? 'none' : usd(n.toFixed(6));
}

export function Keys() {
  const keys = useApi<{ data: Key[] }>('/keys');
  const usage = useApi<{ data: KeyUsage[] }>(`/usage${qs({ group_by: 'key' })}`);
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [error, setError] = useState('');
  const byKey = new Map((usage.data?.data ?? []).map((u) => [u.group ?? '', u]));

  const act = async (fn: () => Promise<unknown>): Promise<void> => {
    setError('');
    try { await fn(); } catch (err) { setError(err instanceof ApiError ? err.message : String(err)); }
    keys.reload();
    usage.reload();
  };

  return (
    <>
      <CreateKey onCreated={(k) => { setCreated(k); keys.reload(); }} />
      {created !== null && (
        <div class="notice" role="status" data-testid="new-key">
          <p>Key <strong>{created.name}</strong> created. Copy it now: it is not shown again.</p>
          <code class="secret" data-testid="new-key-value">{created.key}</code>
          <CopyButton text={created.key} />
          <button type="button" class="link" onClick={() => setCreated(null)}>Done</button>
        </div>
      )}
      {error !== '' && <p class="error" role="alert">{error}</p>}
      <Loadable loading={keys.loading} error={keys.error} empty={(keys.data?.data.length ?? 0) === 0}>
        <Table label="API keys" rows={keys.data?.data ?? []} rowKey={(k) => k.hash} columns={[
          { key: 'name', label: 'Name', render: (k) => k.name, sort: (k) => k.name },
          { key: 'label', label: 'Key', render: (k) => <code>{k.label}</code> },
          { key: 'status', label: 'Status', render: (k) => <span class={k.disabled ? 'badge off' : 'badge on'}>{k.disabled ? 'disabled' : 'active'}</span>, sort: (k) => (k.disabled ? 1 : 0) },
          { key: 'usage', label: 'Usage, 30 days', render: (k) => cost(byKey.get(k.hash)?.cost_usd ?? '0'), sort: (k) => k.usage_monthly, numeric: true },
          { key: 'requests', label: 'Requests, 30 days', render: (k) => String(byKey.get(k.hash)?.requests ?? 0), numeric: true },
          { key: 'limit', label: 'Limit', render: (k) => dollars(k.limit), sort: (k) => k.limit ?? Infinity, numeric: true },
          { key: 'expires', label: 'Expires', render: (k) => (k.expires_at === null ? 'never' : time(k.expires_at)) },
          { key: 'last_used', label: 'Last used', render: (k) => time(k.last_used), sort: (k) => k.last_used ?? '' },
          { key: 'actions', label: 'Actions', render: (k) => (
            <span class="actions">
              <button type="button" onClick={() => act(() => api('PATCH', `/keys/${k.hash}`, { disabled: !k.disabled }))}
                aria-label={`${k.disabled ? 'Enable' : 'Disable'} ${k.name}`}>{k.disabled ? 'Enable' : 'Disable'}</button>
              <button type="button" class="danger" aria-label={`Delete ${k.name}`}
                onClick={() => { if (confirm(`Delete the key "${k.name}"? Clients using it stop working.`)) void act(() => api('DELETE', `/keys/${k.hash}`)); }}>Delete</button>
            </span>
          ) },
        ]} />
      </Loadable>
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: { key: string; name: string }) => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [expires, setExpires] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      const body: Record<string, unknown> = { name };
      if (limit !== '') body.limit = Number(limit);
      if (expires !== '') body.expires_at = new Date(`${expires}T23:59:59`).toISOString();
      const res = await api<{ key: string; data: Key }>('POST', '/keys', body);
      onCreated({ key: res.key, name: res.data.name });
      setName(''); setLimit(''); setExpires('');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={submit} aria-label="Create a key">
      <div>
        <label for="key-name">Name</label>
        <input id="key-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="key-limit">Credit limit (USD, optional)</label>
        <input id="key-limit" type="number" min="0" step="0.01" value={limit} onInput={(e) => setLimit((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" type="date" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit">Create key</button>
      {error !== '' && <p class="error" role="alert">{error}</p>}
    </form>
  );
}
