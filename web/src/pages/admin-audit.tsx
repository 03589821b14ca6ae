import { useState } from 'preact/hooks';
import { qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { time } from '../format.ts';
import { useApi } from '../use-api.ts';

interface Entry { id: number; at: string; actor: { label: string; account_id: string }; action: string; target: string | null; details: unknown }

export function AdminAudit() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const audit = useApi<{ data: Entry[]; next_cursor: string | null }>(`/admin/audit${qs({ limit: 100, cursor })}`);
  return (
    <Loadable loading={audit.loading} error={audit.error} empty={(audit.data?.data.length ?? 0) === 0}>
      <Table label="Audit log" rows={audit.data?.data ?? []} pageSize={100} rowKey={(e) => String(e.id)} columns={[
        { key: 'at', label: 'Time', render: (e) => <span class="nowrap">{time(e.at)}</span>, sort: (e) => e.at },
        { key: 'actor', label: 'By', render: (e) => <code>{e.actor.label}</code> },
        { key: 'action', label: 'Action', render: (e) => e.action, sort: (e) => e.action },
        { key: 'target', label: 'Target', render: (e) => (e.target === null ? '—' : <code class="wrap">{e.target}</code>) },
        { key: 'details', label: 'Details', render: (e) => (e.details == null ? '—' : <code class="wrap">{JSON.stringify(e.details)}</code>) },
      ]} />
      <div class="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>
        <button type="button" disabled={audit.data?.next_cursor == null} onClick={() => setCursors([...cursors, audit.data?.next_cursor ?? null])}>Older</button>
      </div>
    </Loadable>
  );
}
