import { useState } from 'preact/hooks';
import { qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { time, usd } from '../format.ts';
import { useApi } from '../use-api.ts';

import type { LedgerEntry } from '../api/types.ts';

export type LedgerRow = LedgerEntry;

/** The ledger: grants, adjustments and charges, newest first, server pages; spend per day. */
export function Credits() {
  const usage = useApi<{ balance_usd?: string; data: { group: string | null; requests: number; cost_usd: string }[] }>(
    `/usage${qs({ group_by: 'day', limit: 31 })}`,
  );
  return (
    <>
      <p class="stat-inline">
        Balance: <strong data-testid="balance">{usd(usage.data?.balance_usd)}</strong>
      </p>
      <h2>Ledger</h2>
      <Ledger path="/ledger" />
      <h2>Spend per day (30 days)</h2>
      <Loadable loading={usage.loading} error={usage.error} empty={(usage.data?.data.length ?? 0) === 0}>
        <Table
          label="Spend per day"
          rows={usage.data?.data ?? []}
          rowKey={(r) => r.group ?? ''}
          columns={[
            { key: 'day', label: 'Day (UTC)', render: (r) => r.group ?? '—', sort: (r) => r.group ?? '' },
            { key: 'requests', label: 'Requests', render: (r) => String(r.requests), sort: (r) => r.requests, numeric: true },
            { key: 'spend', label: 'Spend', render: (r) => usd(r.cost_usd, 6), numeric: true },
          ]}
        />
      </Loadable>
    </>
  );
}

export function Ledger({ path }: { path: string }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const ledger = useApi<{ data: LedgerRow[]; next_cursor: string | null }>(`${path}${qs({ limit: 50, cursor })}`);
  return (
    <Loadable loading={ledger.loading} error={ledger.error} empty={(ledger.data?.data.length ?? 0) === 0}>
      <Table
        label="Ledger"
        rows={ledger.data?.data ?? []}
        pageSize={50}
        rowKey={(r) => String(r.id)}
        columns={[
          { key: 'time', label: 'Time', render: (r) => time(r.created_at), sort: (r) => r.created_at },
          { key: 'kind', label: 'Kind', render: (r) => r.kind, sort: (r) => r.kind },
          {
            key: 'amount',
            label: 'Amount',
            render: (r) => <span data-testid="ledger-amount">{usd(r.amount_usd, r.kind === 'charge' ? 6 : 2)}</span>,
            numeric: true,
          },
          { key: 'note', label: 'Reason / generation', render: (r) => r.note ?? r.generation_id ?? '—' },
        ]}
      />
      <div class="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={ledger.data?.next_cursor == null}
          onClick={() => setCursors([...cursors, ledger.data?.next_cursor ?? null])}
        >
          Older
        </button>
      </div>
    </Loadable>
  );
}
