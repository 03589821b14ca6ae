import { useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { time, usd } from '../format.ts';
import { useApi } from '../use-api.ts';

interface Key { hash: string; account_id: string; name: string; label: string; kind: string; disabled: boolean; usage_usd: string; limit_usd: string | null; created_at: string; last_used: string | null }

export function AdminKeys() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const keys = useApi<{ data: Key[]; next_cursor: string | null }>(`/admin/keys${qs({ limit: 100, cursor })}`);
  const [error, setError] = useState('');
  const toggle = async (k: Key): Promise<void> => {
    setError('');
    try { await api('PATCH', `/admin/keys/${k.hash}`, { disabled: !k.disabled }); } catch (err) { setError(err instanceof ApiError ? err.message : String(err)); }
    keys.reload();
  };
  return (
    <>
      {error !== '' && <p class="error" role="alert">{error}</p>}
      <Loadable loading={keys.loading} error={keys.error} empty={(keys.data?.data.length ?? 0) === 0}>
        <Table label="All keys" rows={keys.data?.data ?? []} pageSize={100} rowKey={(k) => k.hash} columns={[
          { key: 'name', label: 'Name', render: (k) => k.name, sort: (k) => k.name },
          { key: 'label', label: 'Key', render: (k) => <code>{k.label}</code> },
          { key: 'account', label: 'Account', render: (k) => <code>{k.account_id}</code>, sort: (k) => k.account_id },
          { key: 'kind', label: 'Kind', render: (k) => k.kind, sort: (k) => k.kind },
          { key: 'usage', label: 'Usage', render: (k) => usd(k.usage_usd, 4), sort: (k) => Number(k.usage_usd), numeric: true },
          { key: 'limit', label: 'Limit', render: (k) => (k.limit_usd === null ? 'none' : usd(k.limit_usd)), numeric: true },
          { key: 'last', label: 'Last used', render: (k) => time(k.last_used), sort: (k) => k.last_used ?? '' },
          { key: 'status', label: 'Status', render: (k) => (
            <button type="button" onClick={() => toggle(k)} aria-label={`${k.disabled ? 'Enable' : 'Disable'} ${k.name}`}>{k.disabled ? 'Enable' : 'Disable'}</button>
          ) },
        ]} />
        <div class="pager">
          <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>Previous</button>
          <button type="button" disabled={keys.data?.next_cursor == null} onClick={() => setCursors([...cursors, keys.data?.next_cursor ?? null])}>Next</button>
        </div>
      </Loadable>
    </>
  );
}
